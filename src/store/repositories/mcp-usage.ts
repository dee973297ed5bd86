import { windowParts } from '../../domain/mcp-usage.js';
import type { Store } from '../db.js';

/** MCP token usage records and the company limit they are measured against. */
export function mcpUsageRepository({ db }: Store) {
  /** SUM of the company's usage rows with `at` in the range (the (company_id, at, tokens_used) index covers it). */
  const rowsSum = (companyId: string, range: { from: string; to: string; toIncluded: boolean }) =>
    db
      .selectFrom('mcp_usage')
      .select((eb) => eb.fn.sum<number | string | null>('tokens_used').as('used'))
      .where('company_id', '=', companyId)
      .where('at', '>=', range.from)
      .where('at', range.toIncluded ? '<=' : '<', range.to);

  /** SUM of the company's daily totals of the days from `first` to `last` (the primary key covers it). */
  const daysSum = (companyId: string, days: { first: string; last: string }) =>
    db
      .selectFrom('mcp_usage_daily')
      .select((eb) => eb.fn.sum<number | string | null>('tokens_used').as('used'))
      .where('company_id', '=', companyId)
      .where('day', '>=', days.first)
      .where('day', '<=', days.last);

  /**
   * The company's tokens with `at` in [from, to] as partial sums: the edge days from the
   * usage rows, the whole days between from the daily roll-up (windowParts).
   */
  const windowSums = (companyId: string, from: string, to: string) => {
    const parts = windowParts(from, to);
    const sums = [...parts.rows.map((range) => rowsSum(companyId, range)), ...(parts.days ? [daysSum(companyId, parts.days)] : [])];
    return sums.map((sum, i) => sum.as(`s${i}`));
  };
  /** No rows: SUM is null. PostgreSQL answers a bigint sum as numeric (read as a number by the engine). */
  const total = (sums: Record<string, unknown>) =>
    Object.values(sums).reduce<number>((sum, used) => sum + Number(used ?? 0), 0);

  /** The company's limit and its tokens used in [from, to], in one statement; no row when the company is unknown. */
  const usageQuery = (companyId: string, from: string, to: string) =>
    db.selectFrom('companies').select('mcp_token_limit').select(windowSums(companyId, from, to)).where('id', '=', companyId);

  return {
    usageQuery,

    /** The company's own limit (null: the server default applies) and its tokens used; undefined: no such company. */
    async usage(companyId: string, from: string, to: string): Promise<{ limit: number | null; used: number } | undefined> {
      const row = await usageQuery(companyId, from, to).executeTakeFirst();
      if (!row) return undefined;
      const { mcp_token_limit: limit, ...sums } = row;
      return { limit, used: total(sums) };
    },

    async tokensUsed(companyId: string, from: string, to: string): Promise<number> {
      return total(await db.selectNoFrom(windowSums(companyId, from, to)).executeTakeFirstOrThrow());
    },
  };
}
