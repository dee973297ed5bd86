import t from 'tap';
import { COMPANY_B } from '../fixtures.js';
import { CREATED, PUBLIC_URL, webhookData } from '../fixtures/webhooks.js';
import { READ, SUPERADMIN, badRequest, buildTestApp, expectRefusal, expectRefused, snapshot, type CallOptions } from '../helper.js';
import { WH1, endpoint, storedEndpoint, valid } from './webhooks-requests.js';

// UpdateWebhookEndpoint (PUT /webhook/endpoints/{Id}?CompanyId): a replacement of Url,
// EventTypes, Description and Disabled; Id and Secret are kept. The target address policy
// has its own file, webhooks-targets.test.ts.

t.test('replaces Url, EventTypes, Description and Disabled; keeps Id and Secret', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const started = new Date().toISOString();
  const res = await api.call('PUT', WH1, { body: { Url: PUBLIC_URL, EventTypes: ['booking.created', 'booking.canceled'], Description: 'New hook', Disabled: true } });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    Id: 'wh-1',
    Url: PUBLIC_URL,
    Description: 'New hook',
    Disabled: true,
    EventTypes: ['booking.created', 'booking.canceled'],
    Secret: 'whsec_dGVzdF9hMS4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=',
  });
  const row = await storedEndpoint(api, 'wh-1');
  t.equal(row.created, CREATED, 'Created is kept');
  t.ok(row.updated >= started, 'Updated = now');
  t.equal(row.event_types, '["booking.created","booking.canceled"]');
});

t.test('a replacement: Description left out is cleared, Disabled left out is false', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await api.call('PUT', WH1, { body: valid });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), { Id: 'wh-1', Url: PUBLIC_URL, Disabled: false, EventTypes: ['booking.created'], Secret: 'whsec_dGVzdF9hMS4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=' });
  const row = await storedEndpoint(api, 'wh-1');
  t.equal(row.description, null);
  t.equal(row.disabled, 0);
});

t.test('EventTypes are de-duplicated, first occurrence first', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await api.call('PUT', WH1, { body: { ...valid, EventTypes: ['b', 'a', 'b', 'a'] } });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json().EventTypes, ['b', 'a']);
});

t.test('empty EventTypes: At least one event type is required.', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, EventTypes: [] } }, badRequest(['NotEmpty', 'EventTypes']));
  t.equal(status.Message, 'At least one event type is required.');
  t.equal(status.Errors[0].Message, 'At least one event type is required.');
});

t.test('EventTypes left out is refused', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await expectRefused(t, api, 'PUT', WH1, { body: { Url: PUBLIC_URL } }, badRequest(['NotEmpty', 'EventTypes']));
});

const PATTERN_MESSAGE = "An event type may hold only letters, digits, '_', '.' and '-'.";
const names = (n: number) => Array.from({ length: n }, (_, i) => `event.${i}`);

t.test('an empty event type is refused', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, EventTypes: ['a', ''] } }, badRequest(['NotEmpty', 'EventTypes[1]'], ['RegularExpression', 'EventTypes[1]']));
});

t.test('an event type of other characters than letters, digits, _ . - is refused (no trimming)', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const bad of ['  ', ' a', 'a b', 'a/b', 'é']) {
    const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, EventTypes: ['a', bad] } }, badRequest(['RegularExpression', 'EventTypes[1]']));
    t.equal(status.Errors[0].Message, PATTERN_MESSAGE, JSON.stringify(bad));
  }
});

t.test('EventTypes: 100 names of up to 256 characters are saved; 101, or 257 characters, are not', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const many = await api.call('PUT', WH1, { body: { ...valid, EventTypes: names(100) } });
  t.equal(many.statusCode, 200);
  t.equal(many.json().EventTypes.length, 100);
  t.equal((await api.call('PUT', WH1, { body: { ...valid, EventTypes: ['x'.repeat(256)] } })).statusCode, 200);

  const tooMany = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, EventTypes: names(101) } }, badRequest(['Length', 'EventTypes']));
  t.equal(tooMany.Message, 'At most 100 event types are allowed.');
  t.equal(tooMany.Errors[0].Message, 'At most 100 event types are allowed.');
  const tooLong = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, EventTypes: ['x'.repeat(257)] } }, badRequest(['Length', 'EventTypes[0]']));
  t.equal(tooLong.Errors[0].Message, 'An event type is at most 256 characters long.');
});

t.test('CSV body: 101 event types, a bad name and a long name get the same answers as JSON', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const csv = (eventTypes: string) => `Url,EventTypes\r\n${PUBLIC_URL},"[${eventTypes}]"\r\n`;
  const tooMany = await expectRefused(t, api, 'PUT', WH1, { csv: csv(names(101).join(',')) }, badRequest(['Length', 'EventTypes']));
  t.equal(tooMany.Message, 'At most 100 event types are allowed.');
  const pattern = await expectRefused(t, api, 'PUT', WH1, { csv: csv('ok,a/b') }, badRequest(['RegularExpression', 'EventTypes[1]']));
  t.equal(pattern.Message, PATTERN_MESSAGE);
  const tooLong = await expectRefused(t, api, 'PUT', WH1, { csv: csv('x'.repeat(257)) }, badRequest(['Length', 'EventTypes[0]']));
  t.equal(tooLong.Message, 'An event type is at most 256 characters long.');
  t.equal((await api.call('PUT', WH1, { csv: csv(names(100).join(',')) })).statusCode, 200, '100 is the limit');
});

t.test('Url must be an absolute http(s) URL without credentials', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const url of ['ftp://203.0.113.10/x', '/hooks', 'not a url', 'https://']) {
    expectRefusal(t, await api.call('PUT', WH1, { body: { ...valid, Url: url } }), { status: 400, field: 'Url', name: url });
  }
  const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, Url: 'https://user:pw@93.184.215.14/hooks' } }, badRequest(['InvalidUrl', 'Url']));
  t.equal(status.Message, "'Url' must not contain credentials.");
  t.equal((await api.call('PUT', WH1, { body: { ...valid, Url: 'http://93.184.215.14:8080/x?y=1' } })).statusCode, 200, 'http with port and query');
});

t.test('Url port 0 is refused (InvalidUrl), before the endpoint is looked up', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  for (const url of ['https://93.184.215.14:0/hooks', 'https://hooks.example:0/', 'http://[2606:4700::1111]:0/']) {
    const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, Url: url } }, badRequest(['InvalidUrl', 'Url']));
    t.equal(status.Message, "'Url' must have a port from 1 to 65535.", url);
  }
  const unknown = await api.call('PUT', endpoint('nope'), { body: { ...valid, Url: 'https://93.184.215.14:0/' } });
  t.equal(unknown.statusCode, 400, 'the shape comes before the 404');
});

t.test('an unknown endpoint is 404 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await expectRefused(t, api, 'PUT', endpoint('nope'), { body: valid }, { status: 404, code: 'NotFound', message: 'Webhook endpoint not found.' });
});

t.test("another company's endpoint is 404; the same id in two companies updates only the caller's", async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const unchanged = await snapshot(api.store);
  const res = await api.call('PUT', endpoint('wh-b'), { body: valid });
  t.equal(res.statusCode, 404);
  t.notMatch(res.body, /whsec_dGVzdF9iMS4/);
  await unchanged.assert(t);

  const shared = await api.call('PUT', endpoint('shared'), { body: valid });
  t.equal(shared.statusCode, 200);
  t.equal(shared.json().Secret, 'whsec_YV9zaGFyZWQuLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=');
  const other = await storedEndpoint(api, 'shared', COMPANY_B);
  t.equal(other.url, 'https://b.example.org/', "company B's endpoint is untouched");
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const unchanged = await snapshot(api.store);
  const refusals: Array<[string, string, CallOptions]> = [
    ['no token', WH1, { body: valid, as: null }],
    ['read role', WH1, { body: valid, as: [READ] }],
    ['no role', WH1, { body: valid, as: [] }],
    ['write role, another CompanyId', endpoint('wh-b', COMPANY_B), { body: valid }],
    ['unauthorized caller with an invalid body', WH1, { body: { Url: 'x', EventTypes: [] }, as: [READ] }],
  ];
  for (const [name, url, call] of refusals) {
    expectRefusal(t, await api.call('PUT', url, call), { status: 401, code: 'Unauthorized', name });
  }
  await unchanged.assert(t, 'refused calls changed nothing');

  t.equal((await api.call('PUT', WH1, { body: valid, as: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const other = await api.call('PUT', endpoint('wh-b', COMPANY_B), { body: valid, as: [SUPERADMIN] });
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.equal(other.json().Secret, 'whsec_dGVzdF9iMS4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=');
});

t.test('CompanyId is required in the query', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  await expectRefused(t, api, 'PUT', '/webhook/endpoints/wh-1', { body: valid }, { status: 400, field: 'CompanyId' });
});

t.test('CSV: a CSV request body and a CSV answer', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const csv = `Url,EventTypes,Description,Disabled\r\n${PUBLIC_URL},"[booking.created,booking.canceled]","Hook, CSV",true\r\n`;
  const res = await api.call('PUT', `${WH1}&format=csv`, { csv });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="UpdateWebhookEndpoint.csv"');
  t.equal(
    res.body,
    'Description,Url,Id,Disabled,EventTypes,Secret\r\n' +
      `"Hook, CSV",${PUBLIC_URL},wh-1,true,"[booking.created,booking.canceled]",whsec_dGVzdF9hMS4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=\r\n`,
  );
});

t.test('CSV body with empty EventTypes: At least one event type is required.', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const status = await expectRefused(t, api, 'PUT', WH1, { csv: `Url,EventTypes\r\n${PUBLIC_URL},[]\r\n` }, badRequest(['NotEmpty', 'EventTypes']));
  t.equal(status.Message, 'At least one event type is required.');
});
