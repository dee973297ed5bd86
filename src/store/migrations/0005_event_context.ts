import type { Migration } from 'kysely';

/**
 * The context of the write that recorded an event, kept with each of its deliveries and
 * never sent to receivers (docs/decisions.md, "Request ids and proxies"): `request_id`, the
 * write's X-Request-Id, which the delivery worker's log lines about the attempt carry, and
 * `traceparent`, the W3C trace context of the write, which the attempt's span links to.
 * Both are null for events recorded before this migration or outside a request.
 */
export const eventContext: Migration = {
  async up(db) {
    await db.schema.alterTable('webhook_deliveries').addColumn('request_id', 'text').execute();
    await db.schema.alterTable('webhook_deliveries').addColumn('traceparent', 'text').execute();
  },
  async down(db) {
    await db.schema.alterTable('webhook_deliveries').dropColumn('traceparent').execute();
    await db.schema.alterTable('webhook_deliveries').dropColumn('request_id').execute();
  },
};
