import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { companyId, count, generatedId } from './helpers.js';

/**
 * Webhook deliveries (docs/decisions.md, "Events and deliveries"; each column in "Storage
 * conventions and column meanings"): the outbox a write fills in its transaction, and every
 * attempt of the delivery workers. Also re-encodes endpoint secrets as Standard Webhooks
 * verifies them, `whsec_` + standard base64: base64url, as they were, is refused by the
 * reference libraries when `-` or `_` occurs. Their bytes are kept; a secret not 24 to 64
 * bytes long is replaced by 32 random bytes.
 */
export const webhookDeliveries: Migration = {
  async up(db) {
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'integer', generatedId(db))
      .addColumn('company_id', 'text', companyId)
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'succeeded', 'failed')`))
      .addColumn('attempts', 'integer', count('attempts', 0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires_at', 'text')
      .addUniqueConstraint('webhook_deliveries_message_endpoint_uq', ['company_id', 'endpoint_id', 'message_id'])
      .execute();
    // The workers' claim: pending deliveries that are due, soonest first.
    await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    // An endpoint's messages, newest first (the attempts read operation).
    await db.schema
      .createIndex('webhook_deliveries_endpoint_idx')
      .on('webhook_deliveries')
      .columns(['company_id', 'endpoint_id', 'created', 'id'])
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', 'integer', generatedId(db))
      .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
      .addColumn('attempted_at', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('succeeded', 'integer', (c) => c.notNull().check(sql`succeeded in (0, 1)`))
      .addColumn('response', 'text')
      .addColumn('error', 'text')
      .addColumn('next_attempt_at', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').columns(['delivery_id', 'id']).execute();

    await standardSecrets(db);
  },
  async down(db) {
    await db.schema.dropTable('webhook_attempts').ifExists().execute();
    await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  },
};

/**
 * The secret in the standard spelling: the same key bytes when usable, new ones otherwise.
 * Written out here, not imported, so that this released migration never changes.
 */
export function standardSecret(secret: string): string {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : Buffer.alloc(0);
  return `whsec_${(key.length >= 24 && key.length <= 64 ? key : randomBytes(32)).toString('base64')}`;
}

async function standardSecrets(db: Kysely<any>): Promise<void> {
  const rows = await db.selectFrom('webhook_endpoints').select(['company_id', 'id', 'secret']).execute();
  for (const row of rows as Array<{ company_id: string; id: string; secret: string }>) {
    const secret = standardSecret(row.secret);
    if (secret === row.secret) continue;
    await db.updateTable('webhook_endpoints').set({ secret }).where('company_id', '=', row.company_id).where('id', '=', row.id).execute();
  }
}
