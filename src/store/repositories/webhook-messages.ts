import type { Store } from '../db.js';
import { jsonTextArrayContains } from '../json.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Row } from '../schema.js';

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
  /** when any node may make the first attempt (webhooks/outbox.ts HAND_OFF_MS) */
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
