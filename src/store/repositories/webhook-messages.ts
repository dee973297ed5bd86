import type { Store } from '../db.js';
import { jsonTextArrayContains } from '../json.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Row } from '../schema.js';
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi.js';

/**
 * A message to one endpoint (Svix's EndpointMessageOut): the event's body, fixed when it was
 * recorded, and where its delivery stands. The queue (webhook-queue.ts) moves it on; its
 * attempts are rows of their own.
 */
export type DeliveryRow = Row<'webhook_deliveries'>;
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** An event as the outbox records it: the body is final, signed and sent as it is. */
export interface OutboxEvent {
  companyId: string;
  type: string;
  messageId: string;
  payload: string;
  created: string;
  /** when any node may make the first attempt (HAND_OFF_MS, below) */
  due: string;
  /** the recording write's X-Request-Id and W3C traceparent: kept for logs and traces, never sent */
  requestId: string | null;
  traceparent: string | null;
}

/**
 * The event's messages, one per endpoint of its company that is not disabled and whose
 * EventTypes hold its type: one INSERT … SELECT.
 */
const enqueueQuery = prepared((db, p: Placeholders<OutboxEvent>) =>
  db
    .insertInto('webhook_deliveries')
    .columns([
      'company_id',
      'endpoint_id',
      'message_id',
      'event_type',
      'payload',
      'created',
      'status',
      'attempts',
      'next_attempt_at',
      'request_id',
      'traceparent',
    ])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select((s) => [
          'company_id',
          'id',
          s.val(p.messageId).as('message_id'),
          s.val(p.type).as('event_type'),
          s.val(p.payload).as('payload'),
          s.val(p.created).as('created'),
          s.val('pending').as('status'),
          s.val(0).as('attempts'),
          s.val(p.due).as('next_attempt_at'),
          s.val(p.requestId).as('request_id'),
          s.val(p.traceparent).as('traceparent'),
        ])
        .where('company_id', '=', p.companyId)
        .where('disabled', '=', 0)
        .where(jsonTextArrayContains(db, 'webhook_endpoints.event_types', p.type)),
    ),
);

/** Webhook messages: the outbox that writes fill (docs/decisions.md, "Events and deliveries"). */
export function webhookMessagesRepository({ db }: Pick<Store, 'db'>) {
  return {
    /**
     * Records the event's messages in the caller's transaction (enqueueQuery). Answers how
     * many there are.
     */
    async enqueue(event: OutboxEvent): Promise<number> {
      const { numAffectedRows } = await enqueueQuery.run(db, event);
      return Number(numAffectedRows ?? 0);
    },
  };
}

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
