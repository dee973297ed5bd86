import type { Store } from '../db.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Bool, Row } from '../schema.js';

export type WebhookEndpointRow = Row<'webhook_endpoints'>;

/** What UpdateWebhookEndpoint replaces; the id, secret and created time stay. */
export interface WebhookEndpointReplacement {
  url: string;
  description: string | null;
  eventTypes: string[];
  disabled: boolean;
  updated: string;
}

const findQuery = prepared((db, p: Placeholders<{ companyId: string; id: string }>) =>
  db.selectFrom('webhook_endpoints').selectAll().where('company_id', '=', p.companyId).where('id', '=', p.id),
);

/** The replacement as stored: event types as their JSON text, disabled as 0/1. */
interface ReplaceValues {
  companyId: string;
  id: string;
  url: string;
  description: string | null;
  eventTypes: string;
  disabled: Bool;
  updated: string;
}

const replaceQuery = prepared((db, p: Placeholders<ReplaceValues>) =>
  db
    .updateTable('webhook_endpoints')
    .set({ url: p.url, description: p.description, event_types: p.eventTypes, disabled: p.disabled, updated: p.updated })
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id)
    .returningAll(),
);

/** What a delivery needs of its endpoint, as the endpoint is now. */
export interface DeliveryTarget {
  url: string;
  secret: string;
  disabled: boolean;
}

export function deliveryTarget(row: { url: string; secret: string; disabled: number | null }): DeliveryTarget {
  return { url: row.url, secret: row.secret, disabled: row.disabled === 1 };
}

/** An endpoint's key: its id is unique within its company only. */
export const targetKey = (companyId: string, id: string) => JSON.stringify([companyId, id]);

const disableQuery = prepared((db, p: Placeholders<{ companyId: string; id: string; now: string }>) =>
  db.updateTable('webhook_endpoints').set({ disabled: 1, updated: p.now }).where('company_id', '=', p.companyId).where('id', '=', p.id),
);

/** Webhook endpoints of a company (ids are unique within their company only). */
export function webhooksRepository({ db }: Pick<Store, 'db'>) {
  return {
    find(companyId: string, id: string): Promise<WebhookEndpointRow | undefined> {
      return findQuery.takeFirst(db, { companyId, id });
    },

    /** One UPDATE (atomic on its own); undefined when the company has no such endpoint. */
    replace(companyId: string, id: string, values: WebhookEndpointReplacement): Promise<WebhookEndpointRow | undefined> {
      return replaceQuery.takeFirst(db, {
        companyId,
        id,
        url: values.url,
        description: values.description,
        eventTypes: JSON.stringify(values.eventTypes),
        disabled: values.disabled ? 1 : 0,
        updated: values.updated,
      });
    },

    /** The endpoint answered 410 Gone (docs/decisions.md, "Events and deliveries"). */
    async disable(companyId: string, id: string, now: string): Promise<void> {
      await disableQuery.run(db, { companyId, id, now });
    },
  };
}
