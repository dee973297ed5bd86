import type { Config } from '../config.js';
import { budget, meteredCompany, tokenLimit, usageWindow } from '../domain/mcp-usage.js';
import type { Store } from '../store/db.js';
import { mcpUsageRepository } from '../store/repositories/mcp-usage.js';
import { batched } from './batches.js';
import { loadTokenCounter, type CountTokens } from './tokens.js';

/**
 * The MCP server's metering (docs/decisions.md, "The MCP server"): every tool result adds the
 * o200k_base tokens of its text to the usage GetMcpUsage reports, recorded before the result
 * is sent, and a company that is not within its budget has its calls refused before they run.
 * The calls of one company that read its budget, or add to its usage, in the same turn of the
 * event loop share one statement (batches.ts).
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

interface Batches {
  usage: (company: string, value: undefined) => Promise<{ limit: number | null; used: number } | undefined>;
  record: (company: string, tokens: number) => Promise<void>;
}

/** The batches of budget reads and of usage additions (batches.ts) of each store, and each configuration over it. */
const batchesOf = new WeakMap<Store, WeakMap<Config, Batches>>();

function batches(store: Store, config: Config): Batches {
  let byConfig = batchesOf.get(store);
  if (!byConfig) batchesOf.set(store, (byConfig = new WeakMap()));
  let found = byConfig.get(config);
  if (!found) {
    const repository = mcpUsageRepository(store);
    found = {
      usage: batched((company: string) => {
        const { from, to } = usageWindow(new Date(), config.MCP_WINDOW_DAYS);
        return repository.usage(company, from, to);
      }),
      // The calls' tokens in one addition, to the minute it is made in.
      record: batched((company: string, tokens: number[]) => repository.record(company, tokens.reduce((sum, n) => sum + n, 0), new Date().toISOString())),
    };
    byConfig.set(config, found);
  }
  return found;
}

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
  const found = await batches(store, config).usage(company, undefined);
  if (!found) return undefined;
  const limit = tokenLimit(found.limit, config.MCP_TOKEN_LIMIT);
  if (!budget(found.used, limit).IsWithinBudget) return { overBudget: { limit, windowDays: config.MCP_WINDOW_DAYS } };
  return { company };
}

/** Counts the result's text and adds it to the company's usage; answers the tokens. */
export async function meter(store: Store, config: Config, company: string, text: string): Promise<number> {
  const tokens = await countTokens(text);
  await batches(store, config).record(company, tokens);
  return tokens;
}
