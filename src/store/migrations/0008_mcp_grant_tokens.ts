import type { Migration } from 'kysely';
import { count } from './helpers.js';

/**
 * The MCP tokens metered to the calls made under each grant (docs/decisions.md, "The MCP
 * server"), which McpGrantQuery reports: a metered call whose caller holds a grant adds its
 * tokens to the grant's row in one UPDATE. 0 for grants made before this migration and for
 * rows an older node inserts, which leaves the column to its default.
 */
export const mcpGrantTokens: Migration = {
  async up(db) {
    await db.schema.alterTable('mcp_grants').addColumn('tokens_used', 'bigint', count('tokens_used', 0)).execute();
  },
  async down(db) {
    await db.schema.alterTable('mcp_grants').dropColumn('tokens_used').execute();
  },
};
