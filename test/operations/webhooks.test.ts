import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { CREATED, PUBLIC_URL, webhookData } from '../fixtures/webhooks.js';
import { READ, SUPERADMIN, bearer, buildTestApp } from '../helper.js';
import { put, putCsv, refused, rows, valid } from './webhooks-requests.js';

// UpdateWebhookEndpoint (PUT /webhook/endpoints/{Id}?CompanyId): a replacement of Url,
// EventTypes, Description and Disabled; Id and Secret are kept. The target address policy
// has its own file, webhooks-targets.test.ts.

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

t.test('EventTypes are de-duplicated, first occurrence first', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await put(api, 'wh-1', { ...valid, EventTypes: ['b', 'a', 'b', 'a'] });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json().EventTypes, ['b', 'a']);
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

const PATTERN_MESSAGE = "An event type may hold only letters, digits, '_', '.' and '-'.";
const names = (n: number) => Array.from({ length: n }, (_, i) => `event.${i}`);

t.test('an empty event type is refused', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await refused(t, api, { ...valid, EventTypes: ['a', ''] }, [['NotEmpty', 'EventTypes[1]'], ['RegularExpression', 'EventTypes[1]']]);
});

t.test('an event type of other characters than letters, digits, _ . - is refused (no trimming)', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const bad of ['  ', ' a', 'a b', 'a/b', 'é']) {
    const status = await refused(t, api, { ...valid, EventTypes: ['a', bad] }, [['RegularExpression', 'EventTypes[1]']]);
    t.equal(status.Errors[0].Message, PATTERN_MESSAGE, JSON.stringify(bad));
  }
});

t.test('EventTypes: 100 names of up to 256 characters are saved; 101, or 257 characters, are not', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const many = await put(api, 'wh-1', { ...valid, EventTypes: names(100) });
  t.equal(many.statusCode, 200);
  t.equal(many.json().EventTypes.length, 100);
  t.equal((await put(api, 'wh-1', { ...valid, EventTypes: ['x'.repeat(256)] })).statusCode, 200);

  const tooMany = await refused(t, api, { ...valid, EventTypes: names(101) }, [['Length', 'EventTypes']]);
  t.equal(tooMany.Message, 'At most 100 event types are allowed.');
  t.equal(tooMany.Errors[0].Message, 'At most 100 event types are allowed.');
  const tooLong = await refused(t, api, { ...valid, EventTypes: ['x'.repeat(257)] }, [['Length', 'EventTypes[0]']]);
  t.equal(tooLong.Errors[0].Message, 'An event type is at most 256 characters long.');
});

t.test('CSV body: 101 event types, a bad name and a long name get the same answers as JSON', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const csv = (eventTypes: string) => `Url,EventTypes\r\n${PUBLIC_URL},"[${eventTypes}]"\r\n`;
  const tooMany = await refused(t, api, csv(names(101).join(',')), [['Length', 'EventTypes']]);
  t.equal(tooMany.Message, 'At most 100 event types are allowed.');
  const pattern = await refused(t, api, csv('ok,a/b'), [['RegularExpression', 'EventTypes[1]']]);
  t.equal(pattern.Message, PATTERN_MESSAGE);
  const tooLong = await refused(t, api, csv('x'.repeat(257)), [['Length', 'EventTypes[0]']]);
  t.equal(tooLong.Message, 'An event type is at most 256 characters long.');
  t.equal((await putCsv(api, csv(names(100).join(',')))).statusCode, 200, '100 is the limit');
});

t.test('Url must be an absolute http(s) URL without credentials', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const url of ['ftp://203.0.113.10/x', '/hooks', 'not a url', 'https://']) {
    const res = await put(api, 'wh-1', { ...valid, Url: url });
    t.equal(res.statusCode, 400, url);
    t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'Url', url);
  }
  const status = await refused(t, api, { ...valid, Url: 'https://user:pw@93.184.215.14/hooks' }, [['InvalidUrl', 'Url']]);
  t.equal(status.Message, "'Url' must not contain credentials.");
  t.equal((await put(api, 'wh-1', { ...valid, Url: 'http://93.184.215.14:8080/x?y=1' })).statusCode, 200, 'http with port and query');
});

t.test('Url port 0 is refused (InvalidUrl), before the endpoint is looked up', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const url of ['https://93.184.215.14:0/hooks', 'https://hooks.example:0/', 'http://[2606:4700::1111]:0/']) {
    const status = await refused(t, api, { ...valid, Url: url }, [['InvalidUrl', 'Url']]);
    t.equal(status.Message, "'Url' must have a port from 1 to 65535.", url);
  }
  const unknown = await put(api, 'nope', { ...valid, Url: 'https://93.184.215.14:0/' });
  t.equal(unknown.statusCode, 400, 'the shape comes before the 404');
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
  const status = await refused(t, api, `Url,EventTypes\r\n${PUBLIC_URL},[]\r\n`, [['NotEmpty', 'EventTypes']]);
  t.equal(status.Message, 'At least one event type is required.');
});
