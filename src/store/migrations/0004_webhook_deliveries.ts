import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { companyId, count, generatedId } from './helpers.js';

/**
 * Webhook deliveries (docs/decisions.md, "Events and deliveries"): the outbox that writes fill in the transaction
 * of the write, and the attempts the delivery workers make.
 *
 * - `webhook_deliveries`: one row per event and endpoint it goes to. `message_id` is the
 *   event's `webhook-id`, the same for every endpoint and every retry; `payload` the exact
 *   body that is signed and sent. `status` is pending until a 2xx (succeeded) or until the
 *   retries run out, a 410 or a disabled endpoint end it (failed). `next_attempt_at` says
 *   when a worker may take it; a worker that takes it sets `lease_expires_at` (and its
 *   `lease_owner`), so no other node takes it meanwhile, and a node that died holding it
 *   gives it up when the lease runs out.
 * - `webhook_attempts`: every attempt, as it went.
 *
 * Also: endpoint secrets become what Standard Webhooks verifies, `whsec_` + standard
 * base64. Secrets were written as `whsec_` + base64url (no padding), which the reference
 * libraries refuse whenever `-` or `_` occurs. The key bytes are kept (a receiver already
 * configured with them keeps verifying once its library can read the new spelling); a
 * secret whose bytes are not 24 to 64 long is replaced by a new one of 32 random bytes.
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
