import { checkUrlSafety, checkUrlShape, normalizeEventTypes } from '../domain/webhooks.js';
import { notFound, refuseAny } from '../domain/refusals.js';
import { webhooksRepository, type WebhookEndpointRow } from '../store/repositories/webhooks.js';
import { bool, compact } from '../store/rows.js';
import type { HandlersOf, Schemas } from './types.js';

/** Row → WebhookEndpoint, the Secret included (the caller administers the endpoint). */
export const toWebhookEndpoint = (row: WebhookEndpointRow) =>
  compact<Schemas['WebhookEndpoint']>({
    Id: row.id,
    Url: row.url,
    Description: row.description,
    Disabled: bool(row.disabled),
    EventTypes: JSON.parse(row.event_types) as string[],
    Secret: row.secret,
  });

export const webhookHandlers: HandlersOf<'UpdateWebhookEndpoint'> = {
  /**
   * A replacement (product-decisions §6): Description and Disabled left out are cleared
   * (absent, false). Order: the request's own shape (400), then the endpoint (404), then
   * the target's address policy (400), then one UPDATE. Nothing here resolves the host:
   * a name is judged by its addresses when a delivery connects, not when it is saved.
   */
  async UpdateWebhookEndpoint({ params, body, companyId: company, store, config }) {
    const events = normalizeEventTypes(body.EventTypes);
    refuseAny([...checkUrlShape(body.Url), ...events.errors]);

    const repository = webhooksRepository(store);
    if (!(await repository.find(company, params.Id))) throw notFound('Webhook endpoint not found.');

    refuseAny(checkUrlSafety(body.Url, { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }));

    const row = await repository.replace(company, params.Id, {
      url: body.Url,
      description: body.Description ?? null,
      eventTypes: events.eventTypes,
      disabled: body.Disabled ?? false,
      updated: new Date().toISOString(),
    });
    if (!row) throw notFound('Webhook endpoint not found.');
    return toWebhookEndpoint(row);
  },
};
