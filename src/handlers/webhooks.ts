import { checkUrlSafety, checkUrlShape, uniqueEventTypes } from '../domain/webhooks.js';
import { notFound, refuseAny } from '../domain/refusals.js';
import { webhookMessageHistoryRepository, type AttemptRow, type MessageRow } from '../store/repositories/webhook-message-history.js';
import type { DeliveryStatus } from '../store/repositories/webhook-messages.js';
import { webhookQueueRepository } from '../store/repositories/webhook-queue.js';
import { webhooksRepository, type WebhookEndpointRow } from '../store/repositories/webhooks.js';
import { bool, opt, type Answer } from '../store/prepared.js';
import { envelope } from './query.js';
import type { HandlersOf, Schemas } from './types.js';

type MessageStatus = Schemas['WebhookMessageStatus'];
const STATUS_NAMES: Record<DeliveryStatus, MessageStatus> = { pending: 'Pending', succeeded: 'Success', failed: 'Fail' };
const STATUS_OF_NAME = Object.fromEntries(Object.entries(STATUS_NAMES).map(([status, name]) => [name, status])) as Record<MessageStatus, DeliveryStatus>;

/** Attempt row → WebhookAttempt (Svix's MessageAttemptOut, in this API's casing). */
const toAttempt = (row: AttemptRow) =>
  ({
    Id: row.id,
    Timestamp: row.attempted_at,
    Url: row.url,
    Status: bool(row.succeeded) ? 'Success' : 'Fail',
    ResponseStatusCode: opt(row.status_code),
    ResponseDurationMs: row.duration_ms,
    Response: opt(row.response),
    Error: opt(row.error),
  } satisfies Answer<Schemas['WebhookAttempt']>);

/** Delivery row → WebhookMessage (Svix's EndpointMessageOut), its attempts oldest first. */
const toMessage = (row: MessageRow) =>
  ({
    Id: row.message_id,
    EventType: row.event_type as Schemas['WebhookEventType'],
    Timestamp: row.created,
    Status: STATUS_NAMES[row.status as DeliveryStatus],
    NextAttempt: opt(row.status === 'pending' ? row.next_attempt_at : null),
    Payload: JSON.parse(row.payload) as Schemas['WebhookEvent'],
    Attempts: row.attempt_rows.map(toAttempt),
  } satisfies Answer<Schemas['WebhookMessage']>);

/** Row → WebhookEndpoint, the Secret included (the caller administers the endpoint). */
export const toWebhookEndpoint = (row: WebhookEndpointRow) =>
  ({
    Id: row.id,
    Url: row.url,
    Description: opt(row.description),
    Disabled: bool(row.disabled),
    EventTypes: JSON.parse(row.event_types) as string[],
    Secret: row.secret,
  } satisfies Answer<Schemas['WebhookEndpoint']>);

export const webhookHandlers: HandlersOf<'UpdateWebhookEndpoint' | 'WebhookEndpointMessageQuery'> = {
  /**
   * A replacement (docs/decisions.md, "Reference values"): Description and Disabled left out are cleared
   * (absent, false). Order: the request's own shape (400), then the endpoint (404), then
   * the target's address policy (400), then one UPDATE. Nothing here resolves the host:
   * a name is judged by its addresses when a delivery connects, not when it is saved.
   */
  async UpdateWebhookEndpoint({ params, body, companyId: company, store, config }) {
    refuseAny(checkUrlShape(body.Url));

    const repository = webhooksRepository(store);
    if (!(await repository.find(company, params.Id))) throw notFound('Webhook endpoint not found.');

    refuseAny(checkUrlSafety(body.Url, { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }));

    const replacement = {
      url: body.Url,
      description: body.Description ?? null,
      eventTypes: uniqueEventTypes(body.EventTypes),
      disabled: body.Disabled ?? false,
      updated: new Date().toISOString(),
    };
    // Disabling an endpoint ends its pending deliveries (docs/decisions.md, "Events and deliveries"), with the change.
    const row = await repository.replace(company, params.Id, replacement);
    if (row && replacement.disabled) await webhookQueueRepository(store).failPending(company, params.Id);
    if (!row) throw notFound('Webhook endpoint not found.');
    return toWebhookEndpoint(row);
  },

  /** An endpoint's messages with their attempts, newest first; another company's endpoint is 404. */
  async WebhookEndpointMessageQuery({ params, query, companyId: company, store }) {
    if (!(await webhooksRepository(store).find(company, params.Id))) throw notFound('Webhook endpoint not found.');
    const page = await webhookMessageHistoryRepository(store).page(
      company,
      params.Id,
      { status: query.Status ? STATUS_OF_NAME[query.Status] : undefined },
      query,
    );
    return envelope(page, toMessage);
  },
};
