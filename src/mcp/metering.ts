import type { Config } from '../config.js';
import { budget, meteredCompany, tokenLimit, usageWindow } from '../domain/mcp-usage.js';
import type { Store } from '../store/db.js';
import { mcpUsageRepository } from '../store/repositories/mcp-usage.js';
import { loadTokenCounter, type CountTokens } from './tokens.js';

/**
 * The MCP server's metering (docs/decisions.md, "The MCP server"): every tool result adds the
 * o200k_base tokens of its text to the usage GetMcpUsage reports, recorded before the result
 * is sent, and a company that is not within its budget has its calls refused before they run.
 */

let counting: Promise<CountTokens> | undefined;

/**
 * The o200k_base tokens of `text`, every string as ordinary text (tokens.ts). The encoding's
 * data is loaded by the first call that counts, so a node that serves only HTTP never holds it.
 */
export async function countTokens(text: string): Promise<number> {
  counting ??= loadTokenCounter();
  return (await counting)(text);
}

/** What a call is metered against: the company, once it is known to be within budget. */
export type MeterCheck = { company: string } | { overBudget: { limit: number; windowDays: number } } | undefined;

/**
 * The company a call is metered against and whether it may run. Undefined when there is no
 * company to meter (a caller without one, or a company the store does not hold: the
 * operation refuses the latter itself).
 */
export async function checkBudget(
  store: Store,
  config: Config,
  caller: { companyId?: string; superadmin: boolean },
  namedCompany: unknown,
): Promise<MeterCheck> {
  const company = meteredCompany(caller, namedCompany);
  if (company === undefined) return undefined;
  const { from, to } = usageWindow(new Date(), config.MCP_WINDOW_DAYS);
  const found = await mcpUsageRepository(store).usage(company, from, to);
  if (!found) return undefined;
  const limit = tokenLimit(found.limit, config.MCP_TOKEN_LIMIT);
  if (!budget(found.used, limit).IsWithinBudget) return { overBudget: { limit, windowDays: config.MCP_WINDOW_DAYS } };
  return { company };
}

/** Counts the result's text and adds it to the company's usage; answers the tokens. */
export async function meter(store: Store, company: string, text: string): Promise<number> {
  const tokens = await countTokens(text);
  await mcpUsageRepository(store).record(company, tokens, new Date().toISOString());
  return tokens;
}
