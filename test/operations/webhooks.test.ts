import t, { type Test } from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { CREATED, PUBLIC_URL, webhookData } from '../fixtures/webhooks.js';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp, type TestApp } from '../helper.js';

// UpdateWebhookEndpoint (PUT /webhook/endpoints/{Id}?CompanyId): a replacement of Url,
// EventTypes, Description and Disabled; Id and Secret are kept. No test needs outside DNS:
// targets are literal IPs, or names under WEBHOOK_ALLOW_PRIVATE_TARGETS (no lookup then).

const rows = (api: TestApp) =>
  api.store.db.selectFrom('webhook_endpoints').selectAll().orderBy('company_id').orderBy('id').execute();

const put = async (api: TestApp, id: string, payload: unknown, options: { roles?: string[]; company?: string; as?: string } = {}) =>
  api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/${id}?CompanyId=${options.company ?? COMPANY_A}`,
    headers: await bearer(options.as ?? COMPANY_A, options.roles ?? [WRITE]),
    payload: payload as object,
  });

const valid = { Url: PUBLIC_URL, EventTypes: ['booking.created'] };

/** Expects 400 with these [ErrorCode, FieldName] errors and the store unchanged. */
async function refused(t: Test, api: TestApp, payload: unknown, errors: Array<[string, string]>) {
  const before = await rows(api);
  const res = await put(api, 'wh-1', payload);
  t.equal(res.statusCode, 400);
  const status = res.json().ResponseStatus;
  t.strictSame(status.Errors.map((e: any) => [e.ErrorCode, e.FieldName]), errors);
  t.equal(status.ErrorCode, errors[0][0]);
  t.strictSame(await rows(api), before, 'nothing changed');
  return status;
}

t.test('replaces Url, EventTypes, Description and Disabled; keeps Id and Secret', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const started = new Date().toISOString();
  const res = await put(api, 'wh-1', { Url: PUBLIC_URL, EventTypes: ['booking.created', 'booking.canceled'], Description: 'New hook', Disabled: true });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    Id: 'wh-1',
    Url: PUBLIC_URL,
    Description: 'New hook',
    Disabled: true,
    EventTypes: ['booking.created', 'booking.canceled'],
    Secret: 'whsec_test_a1',
  });
  const row = (await rows(api)).find((r) => r.company_id === COMPANY_A && r.id === 'wh-1')!;
  t.equal(row.created, CREATED, 'Created is kept');
  t.ok(row.updated >= started, 'Updated = now');
  t.equal(row.event_types, '["booking.created","booking.canceled"]');
});

t.test('a replacement: Description left out is cleared, Disabled left out is false', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await put(api, 'wh-1', valid);
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), { Id: 'wh-1', Url: PUBLIC_URL, Disabled: false, EventTypes: ['booking.created'], Secret: 'whsec_test_a1' });
  const row = (await rows(api)).find((r) => r.company_id === COMPANY_A && r.id === 'wh-1')!;
  t.equal(row.description, null);
  t.equal(row.disabled, 0);
});

t.test('EventTypes are trimmed and de-duplicated', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await put(api, 'wh-1', { ...valid, EventTypes: [' a ', 'b', 'a', 'b '] });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json().EventTypes, ['a', 'b']);
});

t.test('empty EventTypes: At least one event type is required.', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const status = await refused(t, api, { ...valid, EventTypes: [] }, [['NotEmpty', 'EventTypes']]);
  t.equal(status.Message, 'At least one event type is required.');
  t.equal(status.Errors[0].Message, 'At least one event type is required.');
});

t.test('EventTypes left out is refused', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await refused(t, api, { Url: PUBLIC_URL }, [['NotEmpty', 'EventTypes']]);
});

t.test('a blank event type is refused', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await refused(t, api, { ...valid, EventTypes: ['a', '  '] }, [['NotEmpty', 'EventTypes[1]']]);
});

t.test('Url must be an absolute http(s) URL without credentials', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const url of ['ftp://203.0.113.10/x', '/hooks', 'not a url', 'https://']) {
    const res = await put(api, 'wh-1', { ...valid, Url: url });
    t.equal(res.statusCode, 400, url);
    t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'Url', url);
  }
  const status = await refused(t, api, { ...valid, Url: 'https://user:pw@203.0.113.10/hooks' }, [['InvalidUrl', 'Url']]);
  t.equal(status.Message, "'Url' must not contain credentials.");
  t.equal((await put(api, 'wh-1', { ...valid, Url: 'http://203.0.113.10:8080/x?y=1' })).statusCode, 200, 'http with port and query');
});

t.test('Url must not target a private, loopback, link-local or unspecified address (UnsafeUrl)', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const unsafe = [
    'http://127.0.0.1/', 'http://10.1.2.3/', 'http://172.16.0.1/', 'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/', 'http://[::1]/', 'http://[::]/',
    'http://[fc00::1]/', 'http://[fe80::1]/', 'http://[::ffff:127.0.0.1]/', 'http://2130706433/',
    'http://localhost:3000/', 'http://api.localhost/', 'http://metadata.google.internal/',
  ];
  for (const url of unsafe) {
    const status = await refused(t, api, { ...valid, Url: url }, [['UnsafeUrl', 'Url']]);
    t.equal(status.Message, "'Url' must not point to a private, loopback or link-local address.", url);
  }
});

t.test('WEBHOOK_ALLOW_PRIVATE_TARGETS lets private targets (and unresolved names) through', async (t) => {
  const api = await buildTestApp(t, { data: webhookData, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: true } });
  for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost/hooks', 'https://hooks.example.test/in']) {
    const res = await put(api, 'wh-1', { ...valid, Url: url });
    t.equal(res.statusCode, 200, url);
    t.equal(res.json().Url, url);
  }
});

t.test('an unknown endpoint is 404 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const before = await rows(api);
  const res = await put(api, 'nope', valid);
  t.equal(res.statusCode, 404);
  t.equal(res.json().ResponseStatus.ErrorCode, 'NotFound');
  t.equal(res.json().ResponseStatus.Message, 'Webhook endpoint not found.');
  t.strictSame(await rows(api), before);
});

t.test("another company's endpoint is 404; the same id in two companies updates only the caller's", async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const before = await rows(api);
  const res = await put(api, 'wh-b', valid);
  t.equal(res.statusCode, 404);
  t.notMatch(res.body, /whsec_test_b1/);
  t.strictSame(await rows(api), before);

  const shared = await put(api, 'shared', valid);
  t.equal(shared.statusCode, 200);
  t.equal(shared.json().Secret, 'whsec_a_shared');
  const other = (await rows(api)).find((r) => r.company_id === COMPANY_B && r.id === 'shared')!;
  t.equal(other.url, 'https://b.example.org/', "company B's endpoint is untouched");
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const before = await rows(api);
  const deny = (name: string, res: Awaited<ReturnType<typeof put>>) => {
    t.equal(res.statusCode, 401, name);
    t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized', name);
  };
  deny('no token', await api.inject({ method: 'PUT', url: `/webhook/endpoints/wh-1?CompanyId=${COMPANY_A}`, payload: valid }));
  deny('read role', await put(api, 'wh-1', valid, { roles: [READ] }));
  deny('no role', await put(api, 'wh-1', valid, { roles: [] }));
  deny('write role, another CompanyId', await put(api, 'wh-b', valid, { company: COMPANY_B }));
  deny('unauthorized caller with an invalid body', await put(api, 'wh-1', { Url: 'x', EventTypes: [] }, { roles: [READ] }));
  t.strictSame(await rows(api), before, 'refused calls changed nothing');

  t.equal((await put(api, 'wh-1', valid, { roles: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const other = await put(api, 'wh-b', valid, { roles: [SUPERADMIN], company: COMPANY_B });
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.equal(other.json().Secret, 'whsec_test_b1');
});

t.test('CompanyId is required in the query', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const before = await rows(api);
  const res = await api.inject({ method: 'PUT', url: '/webhook/endpoints/wh-1', headers: await bearer(COMPANY_A), payload: valid });
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'CompanyId');
  t.strictSame(await rows(api), before);
});

t.test('CSV: a CSV request body and a CSV answer', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/wh-1?CompanyId=${COMPANY_A}&format=csv`,
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: `Url,EventTypes,Description,Disabled\r\n${PUBLIC_URL},"[booking.created,booking.canceled]","Hook, CSV",true\r\n`,
  });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="UpdateWebhookEndpoint.csv"');
  t.equal(
    res.body,
    'Description,Url,Id,Disabled,EventTypes,Secret\r\n' +
      `"Hook, CSV",${PUBLIC_URL},wh-1,true,"[booking.created,booking.canceled]",whsec_test_a1\r\n`,
  );
});

t.test('CSV body with empty EventTypes: At least one event type is required.', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const before = await rows(api);
  const res = await api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/wh-1?CompanyId=${COMPANY_A}`,
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: `Url,EventTypes\r\n${PUBLIC_URL},[]\r\n`,
  });
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.Message, 'At least one event type is required.');
  t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'EventTypes');
  t.strictSame(await rows(api), before);
});
