import type { Store } from '../db.js';
import type { Row } from '../schema.js';

export type WebhookEndpointRow = Row<'webhook_endpoints'>;

/** What UpdateWebhookEndpoint replaces; the id, secret and created time stay. */
export interface WebhookEndpointReplacement {
  url: string;
  description: string | null;
  eventTypes: string[];
  disabled: boolean;
  updated: string;
}

/** Webhook endpoints of a company (ids are unique within their company only). */
export function webhooksRepository({ db }: Pick<Store, 'db'>) {
  return {
    find(companyId: string, id: string): Promise<WebhookEndpointRow | undefined> {
      return db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** One UPDATE (atomic on its own); undefined when the company has no such endpoint. */
    replace(companyId: string, id: string, values: WebhookEndpointReplacement): Promise<WebhookEndpointRow | undefined> {
      return db
        .updateTable('webhook_endpoints')
        .set({
          url: values.url,
          description: values.description,
          event_types: JSON.stringify(values.eventTypes),
          disabled: values.disabled ? 1 : 0,
          updated: values.updated,
        })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
