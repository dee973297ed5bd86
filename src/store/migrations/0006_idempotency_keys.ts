import type { Migration } from 'kysely';

/**
 * The keys of retried writes (docs/decisions.md, "Retried writes"): one row per company and
 * `Idempotency-Key`, claimed by the first statement of the write's transaction (the primary
 * key decides who was first, on every node), with the request's fingerprint and, once the
 * write commits, its answer: `status` and `answer`, the result or the refusal as JSON.
 * `expires_at` is milliseconds since the epoch by the database's clock. No reference to
 * `companies`: a refusal for a company the store does not hold is kept as well.
 */
export const idempotencyKeys: Migration = {
  async up(db) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('operation_id', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('answer', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['company_id', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expires_at').on('idempotency_keys').column('expires_at').execute();
  },
  async down(db) {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  },
};
