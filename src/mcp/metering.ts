import type { Config } from '../config.js';
import { budget, meteredCompany, tokenLimit, usageWindow } from '../domain/mcp-usage.js';
import type { Store } from '../store/db.js';
import { addMcpGrantTokens } from '../store/repositories/mcp-grants.js';
import { mcpUsageRepository, type McpUsage } from '../store/repositories/mcp-usage.js';
import { batched } from './batches.js';

/**
 * The MCP server's metering (docs/decisions.md, "The MCP server"): every tool result adds the
 * o200k_base tokens of its text to the usage GetMcpUsage reports, recorded before the result
 * is sent, and a company that is not within its budget has its calls refused before they run.
 * The calls of one company that read its budget, or add to its usage, in the same turn of the
 * event loop share one statement (batches.ts).
 */

let counting: Promise<(text: string) => number> | undefined;

/**
 * The o200k_base tokens of `text`, as gpt-tokenizer counts them, every string as ordinary
 * text: no special tokens (an answer that holds `<|endoftext|>` is counted, not refused). The
 * encoding is loaded by the first call that counts, so a node that serves only HTTP never
 * holds it.
 */
export async function countTokens(text: string): Promise<number> {
  counting ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens: count }) => {
    const ordinary = { disallowedSpecial: new Set<string>() };
    return (text: string) => count(text, ordinary);
  });
  return (await counting)(text);
}

/** What a call is metered against: the company, once it is known to be within budget. */
export type MeterCheck = { company: string } | { overBudget: { limit: number; windowDays: number } } | undefined;

/**
 * A server's metering over its store. The calls of a company that read its budget or add to
 * its usage at once share one run (batches.ts): a run adds the tokens of the additions that
 * joined it and, when budget reads joined it too, reads the usage after that addition, in
 * one statement where the engine can (the repository's `recordAndUsage`). A company has one
 * run in flight at a time, so under load a run carries the reads and additions of the calls
 * that came and went during the one before. A call made under an OAuth grant also adds its
 * tokens to the grant's (McpGrantQuery's TokensUsed), beside the company's addition: one more
 * statement, shared in the same way by the calls of one grant that come at once.
 */
export class Metering {
  /** A budget read joins as null, an addition as its tokens. */
  private readonly run: (company: string, join: number | null) => Promise<McpUsage | undefined>;
  /** An addition to a grant's tokens. */
  private readonly addToGrant: (grantId: string, tokens: number) => Promise<void>;

  constructor(
    store: Store,
    private readonly config: Config,
  ) {
    const repository = mcpUsageRepository(store);
    this.run = batched(async (company: string, joins: Array<number | null>) => {
      const now = new Date();
      const at = now.toISOString();
      const tokens = joins.reduce<number>((sum, n) => sum + (n ?? 0), 0);
      // The calls' tokens in one addition, to the minute it is made in.
      if (!joins.includes(null)) return void (await repository.record(company, tokens, at));
      const { from, to } = usageWindow(now, config.MCP_WINDOW_DAYS);
      return tokens > 0 ? repository.recordAndUsage(company, tokens, at, from, to) : repository.usage(company, from, to);
    });
    this.addToGrant = batched((grantId: string, joins: number[]) =>
      addMcpGrantTokens(store.db, grantId, joins.reduce((sum, n) => sum + n, 0)),
    );
  }

  /**
   * The company a call is metered against and whether it may run. Undefined when there is no
   * company to meter (a caller without one, or a company the store does not hold: the
   * operation refuses the latter itself).
   */
  async checkBudget(caller: { companyId?: string; superadmin: boolean }, namedCompany: unknown): Promise<MeterCheck> {
    const company = meteredCompany(caller, namedCompany);
    if (company === undefined) return undefined;
    const found = await this.run(company, null);
    if (!found) return undefined;
    const limit = tokenLimit(found.limit, this.config.MCP_TOKEN_LIMIT);
    if (!budget(found.used, limit).IsWithinBudget) return { overBudget: { limit, windowDays: this.config.MCP_WINDOW_DAYS } };
    return { company };
  }

  /**
   * Counts the result's text and adds it to the company's usage and, for a call made under an
   * OAuth grant, to the grant's; answers the tokens once both are stored.
   */
  async meter(company: string, text: string, grantId?: string): Promise<number> {
    const tokens = await countTokens(text);
    if (grantId === undefined || tokens === 0) await this.run(company, tokens);
    else await Promise.all([this.run(company, tokens), this.addToGrant(grantId, tokens)]);
    return tokens;
  }
}
