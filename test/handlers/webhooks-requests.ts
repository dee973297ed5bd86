/** What the UpdateWebhookEndpoint test files share: the endpoint's URL, a valid body, the stored rows. */
import { COMPANY_A } from '../fixtures.js';
import { PUBLIC_URL } from '../fixtures/webhooks.js';
import type { TestApp } from '../helper.js';

/** The URL of endpoint `id` of `company` (CompanyId is required in the query). */
export const endpoint = (id: string, company = COMPANY_A) => `/webhook/endpoints/${id}?CompanyId=${company}`;

/** Endpoint wh-1 of company A, the one most tests update. */
export const WH1 = endpoint('wh-1');

export const valid = { Url: PUBLIC_URL, EventTypes: ['booking.created'] };

/** The stored row of endpoint `id` of `company`. */
export const storedEndpoint = (api: TestApp, id: string, company = COMPANY_A) =>
  api.store.db.selectFrom('webhook_endpoints').selectAll().where('company_id', '=', company).where('id', '=', id).executeTakeFirstOrThrow();
