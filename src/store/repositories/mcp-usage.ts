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
   * The company's tokens with `at` in [from, to] as one query of partial sums: the edge
   * days from the usage rows, the whole days between from the daily roll-up (windowParts).
   */
  const windowQuery = (companyId: string, from: string, to: string) => {
    const parts = windowParts(from, to);
    const sums = [...parts.rows.map((range) => rowsSum(companyId, range)), ...(parts.days ? [daysSum(companyId, parts.days)] : [])];
    return db.selectNoFrom(sums.map((sum, i) => sum.as(`s${i}`)));
  };

  return {
    windowQuery,

    async tokensUsed(companyId: string, from: string, to: string): Promise<number> {
      const row = await windowQuery(companyId, from, to).executeTakeFirstOrThrow();
      // No rows: SUM is null. PostgreSQL answers a bigint sum as numeric text.
      return Object.values(row as Record<string, number | string | null>).reduce<number>((total, used) => total + Number(used ?? 0), 0);
    },

    /** The company's own limit (null: the server default applies); undefined: no such company. */
    async companyLimit(companyId: string): Promise<{ limit: number | null } | undefined> {
      const row = await db.selectFrom('companies').select('mcp_token_limit').where('id', '=', companyId).executeTakeFirst();
      return row && { limit: row.mcp_token_limit };
    },
  };
}
