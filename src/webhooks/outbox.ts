import { randomUUID } from 'node:crypto';
import type { components } from '../generated/openapi.js';
import type { Store } from '../store/db.js';
import { webhookMessagesRepository } from '../store/repositories/webhook-messages.js';

/** The contract's catalogue of events (WebhookEventType). */
export type WebhookEventType = components['schemas']['WebhookEventType'];

/**
 * A message id, sent as `webhook-id`: unique (a random UUID's 122 bits, as 32 hex digits), and
 * the same on every retry of the message. randomUUID draws from a buffered pool of entropy,
 * where randomBytes asks the system for each id.
 */
export const newMessageId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/**
 * How long a new event waits for the node that recorded it: that node claims it by id once
 * the write's answer is sent (the webhooks plugin's onResponse), and any node may take it
 * after this, should the writing node not deliver (WEBHOOK_DELIVERY=false, or it died). A
 * write's answer leaves its node long before; so no node delivers an event before its write
 * has answered.
 */
export const HAND_OFF_MS = 1000;

/**
 * Where an event was recorded: the write's request id and W3C trace context. Kept with the
 * event for the delivery's logs and traces, never sent to receivers (docs/decisions.md,
 * "Request ids and proxies").
 */
export interface EventContext {
  requestId?: string;
  traceparent?: string;
}

/**
 * Records an event in the outbox and answers its message id, or null when no endpoint takes
 * it (nothing to deliver): `store` must be the
 * transaction of the write that caused it, so the event commits with the write or not at
 * all (docs/decisions.md, "Events and deliveries"). The body is fixed now, `{"type", "timestamp", "data"}` with
 * `data` the operation's JSON answer, so every attempt sends and signs the same bytes.
 */
export async function recordEvent(
  store: Pick<Store, 'db'>,
  companyId: string,
  type: WebhookEventType,
  data: unknown,
  at = new Date(),
  context: EventContext = {},
): Promise<string | null> {
  const timestamp = at.toISOString();
  const payload = JSON.stringify({ type, timestamp, data });
  const messageId = newMessageId();
  const due = new Date(at.getTime() + HAND_OFF_MS).toISOString();
  const deliveries = await webhookMessagesRepository(store).enqueue({
    companyId,
    type,
    messageId,
    payload,
    created: timestamp,
    due,
    requestId: context.requestId ?? null,
    traceparent: context.traceparent ?? null,
  });
  return deliveries > 0 ? messageId : null;
}
