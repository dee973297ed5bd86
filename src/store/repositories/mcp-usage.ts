import type { Store } from '../db.js';

/** MCP token usage records and the company limit they are measured against. */
export function mcpUsageRepository({ db }: Store) {
  /**
   * SUM of a company's tokens with `at` in [from, to]. The (company_id, at, tokens_used)
   * index of the migration answers it as one range scan of the index alone.
   */
  const windowSum = (companyId: string, from: string, to: string) =>
    db
      .selectFrom('mcp_usage')
      .select((eb) => eb.fn.sum<number | string | null>('tokens_used').as('used'))
      .where('company_id', '=', companyId)
      .where('at', '>=', from)
      .where('at', '<=', to);

  return {
    windowSum,

    async tokensUsed(companyId: string, from: string, to: string): Promise<number> {
      const row = await windowSum(companyId, from, to).executeTakeFirst();
      // No rows: SUM is null. PostgreSQL answers a bigint sum as numeric text.
      return Number(row?.used ?? 0);
    },

    /** The company's own limit (null: the server default applies); undefined: no such company. */
    async companyLimit(companyId: string): Promise<{ limit: number | null } | undefined> {
      const row = await db.selectFrom('companies').select('mcp_token_limit').where('id', '=', companyId).executeTakeFirst();
      return row && { limit: row.mcp_token_limit };
    },
  };
}
