/**
 * The MCP token budget of a company (service document, Limits 1): a limit applies over a
 * rolling window of WindowDays days; TokensRemaining is never negative; IsWithinBudget is
 * true while TokensUsed is below TokenLimit. Pure functions: `now` is passed in so the
 * window's edges can be tested exactly.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The rolling window [now − windowDays days, now], both ends included, as ISO UTC text. */
export function usageWindow(now: Date, windowDays: number): { from: string; to: string } {
  return { from: new Date(now.getTime() - windowDays * DAY_MS).toISOString(), to: now.toISOString() };
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
