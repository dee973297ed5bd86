import net from 'node:net';
import t from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { buildTestApp, expectRefusal, expectRefused, rawExchange } from '../helper.js';

// Every error, from every layer, is a ResponseStatus (docs/decisions.md, "Wire format").

t.test('an unknown route is 404 NotFound', async (t) => {
  const api = await buildTestApp(t);
  expectRefusal(t, await api.call('GET', '/nowhere', { as: null }), { status: 404, code: 'NotFound' });
});

t.test('a body that is not JSON is 400 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const notJson = { body: '{"Url": ', headers: { 'content-type': 'application/json' } };
  await expectRefused(t, api, 'PUT', `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`, notJson, { status: 400, code: 'SerializationException' });
});

t.test('a body larger than the limit is 413', async (t) => {
  const api = await buildTestApp(t, { data: baseData, config: { BODY_LIMIT: 1024 } });
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'x'.repeat(4000) } });
  expectRefusal(t, res, { status: 413, code: 'PayloadTooLarge' });
});

t.test('validation lists every failure with FieldName paths and ServiceStack codes', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/messages/templates', { body: { TypeId: 0, Title: '', Language: 'fr', Services: ['x'] } });
  const status = expectRefusal(t, res, { status: 400 });
  const byField = Object.fromEntries(status.Errors.map((e: { FieldName: string }) => [e.FieldName, e]));
  t.match(byField.TypeId, { ErrorCode: 'GreaterThanOrEqual', Message: "'Type Id' must be greater than or equal to '1'." });
  t.match(byField.Name, { ErrorCode: 'NotEmpty', Message: "'Name' must not be empty." });
  t.match(byField.Body, { ErrorCode: 'NotEmpty' });
  t.match(byField.Title, { ErrorCode: 'NotEmpty', Message: "'Title' must not be empty." });
  t.match(byField.Language, { ErrorCode: 'Enum' });
  t.match(byField['Services[0]'], { ErrorCode: 'InvalidType' });
  t.equal(status.ErrorCode, status.Errors[0].ErrorCode, 'ErrorCode of the first failure');
  t.equal(status.Message, status.Errors[0].Message, 'Message of the first failure');
});

t.test('nested field paths name the parent, e.g. Customer.Email', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/rebatecodes/fromarticle', { body: { ArticleId: 1, Customer: { Email: 'not-an-email' } } });
  t.match(expectRefusal(t, res, { status: 400 }).Errors, [{ FieldName: 'Customer.Email', ErrorCode: 'Email' }]);
});

t.test('query parameters are validated too', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const status = expectRefusal(t, await api.call('GET', '/categories?Skip=-1&Take=abc', { as: null }), { status: 400 });
  const fields = status.Errors.map((e: { FieldName: string }) => e.FieldName).sort();
  t.same(fields, ['Skip', 'Take']);
});

t.test('UpdateWebhookEndpoint with empty EventTypes: At least one event type is required.', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('PUT', `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`, { body: { Url: 'https://example.org/hook', EventTypes: [] } });
  const status = expectRefusal(t, res, { status: 400, message: 'At least one event type is required.' });
  t.match(status.Errors, [{ FieldName: 'EventTypes', Message: 'At least one event type is required.' }]);
});

t.test('an unexpected error is 500 InternalServerError with no stack trace', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  await api.store.db.schema.dropTable('company_categories').execute();
  await api.store.db.schema.dropTable('categories').execute();
  const res = await api.call('GET', '/categories', { as: null });
  const status = expectRefusal(t, res, { status: 500, code: 'InternalServerError' });
  t.notOk(status.StackTrace);
  t.notMatch(res.body, /categories|SQLITE/i, 'no internals leak');
});

t.test('the stack trace is sent only when NODE_ENV=development', async (t) => {
  const api = await buildTestApp(t, { data: baseData, config: { NODE_ENV: 'development' } });
  await api.store.db.schema.dropTable('company_categories').execute();
  await api.store.db.schema.dropTable('categories').execute();
  const res = await api.call('GET', '/categories', { as: null });
  t.type(expectRefusal(t, res, { status: 500 }).StackTrace, 'string');
});

t.test('health answers 200 while the store answers', async (t) => {
  const api = await buildTestApp(t);
  const res = await api.call('GET', '/health', { as: null });
  t.equal(res.statusCode, 200);
});

t.test("what Node's HTTP parser refuses is a ResponseStatus too", async (t) => {
  const api = await buildTestApp(t);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (api.app.server.address() as net.AddressInfo).port;
  const cases: Array<[string, string, number, string]> = [
    ['headers over 16 KB', `GET /categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'RequestHeaderFieldsTooLarge'],
    [
      'Transfer-Encoding beside Content-Length',
      'POST /resourcetypes HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      400,
      'BadRequest',
    ],
    ['a malformed request line', 'GET /categories HTTP/9\r\n\r\n', 400, 'BadRequest'],
    ['a header without a colon', 'GET /categories HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'BadRequest'],
  ];
  for (const [what, bytes, status, code] of cases) {
    const answer = await rawExchange(port, bytes);
    const [head, body] = answer.split('\r\n\r\n');
    t.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), what);
    t.match(head, /content-type: application\/json; charset=utf-8/i, `${what}: JSON`);
    const responseStatus = JSON.parse(body).ResponseStatus;
    t.same(responseStatus.ErrorCode, code, `${what}: ${body}`);
    t.same(responseStatus.Errors, []);
  }
});
