import { sql, type Migration } from 'kysely';

/**
 * The authorization server of `/mcp` (docs/decisions.md, "Assistants sign in with OAuth"):
 * oidc-provider's records in one table keyed by model and id, its signing and cookie keys
 * (encrypted with OAUTH_SECRET, one row per kind and generation: the primary key decides
 * which node's new key is the generation's), and one row per grant an assistant holds.
 * Times are milliseconds since the epoch. No reference to `companies`: a grant is for the
 * company the person's credentials name, which the store need not hold (as idempotency_keys).
 */
export const oauth: Migration = {
  async up(db) {
    await db.schema
      .createTable('oauth_payloads')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('uid', 'text')
      .addColumn('expires_at', 'bigint')
      .addColumn('consumed_at', 'bigint')
      .addPrimaryKeyConstraint('oauth_payloads_pk', ['model', 'id'])
      .execute();
    await db.schema.createIndex('oauth_payloads_grant_id').on('oauth_payloads').column('grant_id').execute();
    await db.schema.createIndex('oauth_payloads_model_uid').on('oauth_payloads').columns(['model', 'uid']).execute();
    await db.schema.createIndex('oauth_payloads_expires_at').on('oauth_payloads').column('expires_at').execute();

    await db.schema
      .createTable('oauth_keys')
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('signing', 'cookie')`))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('oauth_keys_pk', ['kind', 'generation'])
      .execute();

    await db.schema
      .createTable('mcp_grants')
      .addColumn('grant_id', 'text', (c) => c.primaryKey())
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('sub', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('client_origin', 'text', (c) => c.notNull())
      .addColumn('client_name', 'text')
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('mcp_grants_company_created').on('mcp_grants').columns(['company_id', 'created_at']).execute();
    // The sweeper's lookup, as oauth_payloads_expires_at is.
    await db.schema.createIndex('mcp_grants_expires_at').on('mcp_grants').column('expires_at').execute();
  },
  async down(db) {
    await db.schema.dropTable('mcp_grants').ifExists().execute();
    await db.schema.dropTable('oauth_keys').ifExists().execute();
    await db.schema.dropTable('oauth_payloads').ifExists().execute();
  },
};
