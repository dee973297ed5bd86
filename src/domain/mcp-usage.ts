/**
 * The MCP token budget of a company (the contract's GetMcpUsage): a limit applies over a
 * rolling window of WindowDays days; TokensRemaining is never negative; IsWithinBudget is
 * true while TokensUsed is below TokenLimit. Pure functions: `now` is passed in so the
 * window's edges can be tested exactly.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The rolling window [now − windowDays days, now], both ends included, as ISO UTC text. */
export function usageWindow(now: Date, windowDays: number): { from: string; to: string } {
  return { from: new Date(now.getTime() - windowDays * DAY_MS).toISOString(), to: now.toISOString() };
}

/**
 * How the store sums a window [from, to] (ISO UTC text, both ends included) from a daily
 * roll-up: the UTC days wholly inside the window from the roll-up, the partial days at its
 * two edges from the usage rows themselves. So the cost of a sum stays two short index
 * ranges plus one row a day, however many usage rows a company has.
 * - `rows`: ranges of usage rows (`at` in [from, to), or [from, to] when `toIncluded`);
 * - `days`: the first and last whole day ('YYYY-MM-DD', both included), when there is one.
 */
export interface WindowParts {
  rows: Array<{ from: string; to: string; toIncluded: boolean }>;
  days?: { first: string; last: string };
}

const dayOf = (iso: string) => iso.slice(0, 10);
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString();

export function windowParts(from: string, to: string): WindowParts {
  const firstDay = dayOf(from);
  const lastDay = dayOf(to);
  if (firstDay >= lastDay) return { rows: [{ from, to, toIncluded: true }] };
  const headEnd = nextDay(firstDay); // midnight after `from`
  const tailStart = `${lastDay}T00:00:00.000Z`;
  const parts: WindowParts = {
    rows: [
      { from, to: headEnd, toIncluded: false },
      { from: tailStart, to, toIncluded: true },
    ],
  };
  const firstWhole = dayOf(headEnd);
  const lastWhole = dayOf(new Date(Date.parse(tailStart) - DAY_MS).toISOString());
  if (firstWhole <= lastWhole) parts.days = { first: firstWhole, last: lastWhole };
  return parts;
}

/** The company's own limit when it has one, else the server default (MCP_TOKEN_LIMIT). */
export function tokenLimit(companyLimit: number | null | undefined, defaultLimit: number): number {
  return companyLimit ?? defaultLimit;
}

export interface Budget {
  TokensUsed: number;
  TokenLimit: number;
  TokensRemaining: number;
  IsWithinBudget: boolean;
}

/** Usage against the limit: exactly at the limit is no longer within budget. */
export function budget(tokensUsed: number, limit: number): Budget {
  return {
    TokensUsed: tokensUsed,
    TokenLimit: limit,
    TokensRemaining: Math.max(0, limit - tokensUsed),
    IsWithinBudget: tokensUsed < limit,
  };
}

/**
 * The company whose MCP usage a call of the MCP server adds to (docs/decisions.md, "The MCP
 * server"): the caller's own, except that a superadmin's call uses the company it names
 * (`CompanyId`, blank meaning none). Undefined: no company to meter.
 */
export function meteredCompany(caller: { companyId?: string; superadmin: boolean }, named: unknown): string | undefined {
  if (caller.superadmin && typeof named === 'string' && named.trim() !== '') return named.toLowerCase();
  return caller.companyId;
}
