import { randomBytes } from 'node:crypto';
import type { Schemas } from '../operations/types.js';
import type { Store } from '../store/db.js';
import { webhookDeliveriesRepository } from '../store/repositories/webhook-deliveries.js';

export type WebhookEventType = Schemas['WebhookEventType'];

/** A message id, sent as `webhook-id`: unique, and the same on every retry of the message. */
export const newMessageId = () => `msg_${randomBytes(16).toString('hex')}`;

/**
 * Records an event in the outbox: `store` must be the transaction of the write that caused
 * it, so the event commits with the write or not at all (product-decisions §7). The body
 * is fixed now, `{"type", "timestamp", "data"}` with `data` the operation's JSON answer,
 * so every attempt sends and signs the same bytes.
 */
export async function recordEvent(store: Pick<Store, 'db'>, companyId: string, type: WebhookEventType, data: unknown, at = new Date()): Promise<void> {
  const timestamp = at.toISOString();
  const payload = JSON.stringify({ type, timestamp, data });
  await webhookDeliveriesRepository(store).enqueue({ companyId, type, messageId: newMessageId(), payload, created: timestamp });
}
