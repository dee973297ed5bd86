/** Requests and checks shared by the UpdateWebhookEndpoint test files. */
import type { Test } from 'tap';
import { COMPANY_A } from '../fixtures.js';
import { PUBLIC_URL } from '../fixtures/webhooks.js';
import { WRITE, bearer, type TestApp } from '../helper.js';

export const rows = (api: TestApp) =>
  api.store.db.selectFrom('webhook_endpoints').selectAll().orderBy('company_id').orderBy('id').execute();

export const put = async (api: TestApp, id: string, payload: unknown, options: { roles?: string[]; company?: string; as?: string } = {}) =>
  api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/${id}?CompanyId=${options.company ?? COMPANY_A}`,
    headers: await bearer(options.as ?? COMPANY_A, options.roles ?? [WRITE]),
    payload: payload as object,
  });

/** A CSV request body (one header row, one data row) for endpoint wh-1 of company A. */
export const putCsv = async (api: TestApp, csv: string) =>
  api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/wh-1?CompanyId=${COMPANY_A}`,
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: csv,
  });

export const valid = { Url: PUBLIC_URL, EventTypes: ['booking.created'] };

/** Expects 400 with these [ErrorCode, FieldName] errors and the store unchanged; a string payload is sent as CSV. */
export async function refused(t: Test, api: TestApp, payload: unknown, errors: Array<[string, string]>) {
  const before = await rows(api);
  const res = typeof payload === 'string' ? await putCsv(api, payload) : await put(api, 'wh-1', payload);
  t.equal(res.statusCode, 400);
  const status = res.json().ResponseStatus;
  t.strictSame(status.Errors.map((e: any) => [e.ErrorCode, e.FieldName]), errors);
  t.equal(status.ErrorCode, errors[0][0]);
  t.strictSame(await rows(api), before, 'nothing changed');
  return status;
}
