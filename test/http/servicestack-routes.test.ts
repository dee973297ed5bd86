import t from 'tap';
import { COMPANY_A, COMPANY_B, baseData } from '../fixtures.js';
import { rebateData } from '../fixtures/rebate-codes.js';
import { resourceData } from '../fixtures/resources.js';
import { PUBLIC_URL, webhookData } from '../fixtures/webhooks.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, expectRefused, type Method } from '../helper.js';

// ServiceStack's predefined routes (docs/decisions.md, "Wire format"): every operation is also
// served at /api/{OperationId} and /json/reply/{OperationId}, the routes ServiceStack's
// JsonServiceClient calls by default, with exactly the authentication, roles, company rules, validation, rate
// limits and errors of the operation's own route.

const PREFIXES = ['/api', '/json/reply'];
const CARD = 1008;

t.test('/api/CategoryQuery and /json/reply/CategoryQuery answer as /categories', async (t) => {
  const api = await buildTestApp(t, { data: baseData, as: null });
  const own = await api.call('GET', '/categories?skip=1&take=2&orderBy=Id');
  t.equal(own.statusCode, 200);
  for (const url of ['/api/CategoryQuery', '/json/reply/CategoryQuery', '/api/categoryquery', '/json/reply/CATEGORYQUERY/']) {
    const res = await api.call('GET', `${url}?skip=1&take=2&orderBy=Id`);
    t.same([res.statusCode, res.json()], [200, own.json()], url);
  }
  const head = await api.call('HEAD', '/api/CategoryQuery');
  t.equal(head.statusCode, 200, 'HEAD, as on the own path');
});

t.test('as JsonServiceClient calls them: its method, the DTO in the query string or the JSON body', async (t) => {
  // The client sends Content-Type: application/json on every request, a body only with
  // POST/PUT, and the whole request DTO (null members as bare names) otherwise in the query string.
  const json = { 'content-type': 'application/json' };
  const api = await buildTestApp(t, { data: { ...baseData, ...webhookData, Companies: baseData.Companies, Categories: baseData.Categories } });
  const page = await api.call('GET', '/api/CategoryQuery?Skip=1&Take=2&OrderBy&Id', { headers: json });
  t.same(page.json().Results.map((r: { Id: number }) => r.Id), [2, 3]);
  const tag = await api.call('DELETE', `/api/DeleteTag?Id=11&CompanyId`, { headers: json });
  t.same([tag.statusCode, tag.json().Active], [200, false]);
  const body = { Id: 'wh-1', CompanyId: COMPANY_A, Url: PUBLIC_URL, EventTypes: ['booking.created'], Description: 'From the client', Disabled: false };
  const put = await api.call('PUT', '/json/reply/UpdateWebhookEndpoint', { body });
  t.same([put.statusCode, put.json()], [200, { Id: 'wh-1', Url: PUBLIC_URL, Description: 'From the client', Disabled: false, EventTypes: ['booking.created'], Secret: 'whsec_dGVzdF9hMS4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4=' }]);
  const rebate = await buildTestApp(t, { data: rebateData });
  const post = await rebate.call('POST', '/api/CreateRebateCodeTransaction', { body: { RebateCodeId: CARD, Amount: 1, Usage: 0, ChangeType: 1, BookingId: null, CompanyId: null } });
  t.same([post.statusCode, post.json().RebateCodeTransactionItem.Amount], [200, -1]);
});

t.test('path parameters come from the query string or the body', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const fromQuery = await api.call('DELETE', '/api/DeleteResource?id=100&force=true');
  t.same([fromQuery.statusCode, fromQuery.json().Active], [200, false]);
  const fromBody = await api.call('DELETE', '/json/reply/DeleteResource', { body: { Id: 101, Force: false } });
  t.same([fromBody.statusCode, fromBody.json().Id], [200, 101], 'deleted: Chair 2 has no blocking booking');
  t.same(await api.store.db.selectFrom('resources').select('id').where('id', '=', 101).execute(), []);
  await expectRefused(t, api, 'DELETE', '/api/DeleteResource', {}, { status: 400, errors: [['NotEmpty', 'Id']] });
  await expectRefused(t, api, 'DELETE', '/api/DeleteResource?Id=100&Id=102', {}, { status: 400, field: 'Id', name: 'a repeated Id' });
  await expectRefused(t, api, 'DELETE', '/api/DeleteResource?Id=_', {}, { status: 400, field: 'Id', name: 'the segment that stands for it is no value' });
});

t.test('authentication, roles and company rules are those of the own route', async (t) => {
  const api = await buildTestApp(t, { data: { ...resourceData, Tags: [...resourceData.Tags, ...baseData.Tags.filter((tag) => tag.CompanyId === COMPANY_B)] } });
  for (const prefix of PREFIXES) {
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag?Id=10`, { as: null }, { status: 401, code: 'Unauthorized', name: `${prefix}: no token` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag?Id=10`, { as: 'not.a.jwt' }, { status: 401, code: 'Unauthorized', name: `${prefix}: a bad token` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag?Id=10`, { as: [READ] }, { status: 401, code: 'Unauthorized', name: `${prefix}: a reader` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteResource?Id=100`, { as: [READ] }, { status: 403, code: 'Forbidden', name: `${prefix}: 403 where declared` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag?Id=20`, {}, { status: 404, code: 'NotFound', name: `${prefix}: another company's tag` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag?Id=10&CompanyId=${COMPANY_B}`, {}, { status: 401, name: `${prefix}: another company's CompanyId` });
    await expectRefused(t, api, 'DELETE', `${prefix}/DeleteTag`, { as: null, body: { Id: 'x' } }, { status: 401, name: `${prefix}: 401 before the body is judged` });
  }
  const usage = await api.call('GET', `/api/GetMcpUsage?companyid=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.same([usage.statusCode, usage.json().CompanyId], [200, COMPANY_B], 'a superadmin names any company');
});

t.test('validation answers exactly as on the own route', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const bodies = [{}, { RebateCodeId: 0, Amount: -1, Usage: 'x', ChangeType: 'Sideways' }, { RebateCodeId: CARD, Amount: 999, Usage: 0, ChangeType: 'Decrease' }];
  for (const body of bodies) {
    const own = await api.call('POST', '/rebatecodes/transactions', { body });
    t.equal(own.statusCode, 400);
    for (const prefix of PREFIXES) {
      const res = await expectRefused(t, api, 'POST', `${prefix}/CreateRebateCodeTransaction`, { body }, { status: 400, field: own.json().ResponseStatus.Errors[0].FieldName });
      t.same(res, own.json().ResponseStatus, `${prefix}: the same ResponseStatus`);
    }
  }
  const webhooks = await buildTestApp(t, { data: webhookData });
  const status = await expectRefused(t, webhooks, 'PUT', '/api/UpdateWebhookEndpoint', { body: { Id: 'wh-1', CompanyId: COMPANY_A, Url: PUBLIC_URL, EventTypes: [] } }, { status: 400, errors: [['NotEmpty', 'EventTypes']] });
  t.equal(status.Message, 'At least one event type is required.');
});

t.test('each predefined route serves its operation’s method; any other is 405 with Allow', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const cases: Array<[Method, string, string]> = [
    ['POST', '/api/CategoryQuery', 'GET, HEAD'],
    ['GET', '/api/DeleteTag?Id=10', 'DELETE'],
    ['PATCH', '/json/reply/DeleteTag', 'DELETE'],
    ['GET', '/json/reply/UpdateWebhookEndpoint', 'PUT'],
    ['PUT', '/api/CreateResourceType', 'POST'],
  ];
  for (const [method, url, allow] of cases) {
    const res = await api.call(method, url, { as: null, body: method === 'GET' ? undefined : {} });
    expectRefusal(t, res, { status: 405, code: 'MethodNotAllowed', message: new RegExp(`^${method} is not allowed on ${url.split('?')[0]}; use`), name: `${method} ${url}` });
    t.equal(res.headers.allow, allow);
  }
  t.equal((await api.store.db.selectFrom('tags').select('active').where('id', '=', 10).executeTakeFirstOrThrow()).active, 1, 'a GET deleted nothing');
});

t.test('an unknown operation name is 404 ResponseStatus', async (t) => {
  const api = await buildTestApp(t, { data: baseData, as: null });
  for (const url of ['/api/NoSuchOperation', '/json/reply/NoSuchOperation', '/api/', '/api/CategoryQuery/extra', '/json/oneway/CategoryQuery', '/api/NoSuchOperation.json']) {
    expectRefusal(t, await api.call('GET', url), { status: 404, code: 'NotFound', name: url });
  }
});

t.test('CSV through format=csv, the .csv suffix or Accept; .json like .csv', async (t) => {
  const api = await buildTestApp(t, { data: baseData, as: null });
  const expected = 'Id,Name,NormalizedName,Active\r\n3,Gym,gym,true\r\n';
  for (const [url, headers] of [
    ['/api/CategoryQuery?format=csv&Id=3', {}],
    ['/json/reply/CategoryQuery.csv?id=3', {}],
    ['/api/CategoryQuery?Id=3', { accept: 'text/csv' }],
  ] as const) {
    const res = await api.call('GET', url, { headers });
    t.same([res.statusCode, res.headers['content-type'], res.body], [200, 'text/csv; charset=utf-8', expected], url);
    t.equal(res.headers['content-disposition'], 'attachment; filename="CategoryQuery.csv"');
  }
  for (const url of ['/categories.json?Id=3', '/api/CategoryQuery.json?Id=3', '/json/reply/CategoryQuery.JSON?Id=3']) {
    const res = await api.call('GET', url, { headers: { accept: 'text/csv' } });
    t.same([res.statusCode, res.headers['content-type'], res.json().Results], [200, 'application/json; charset=utf-8', [{ Id: 3, Name: 'Gym', NormalizedName: 'gym', Active: true }]], `${url}: JSON over Accept`);
  }
  const csvWins = await api.call('GET', '/api/CategoryQuery.json?format=csv&Id=3');
  t.equal(csvWins.headers['content-type'], 'text/csv; charset=utf-8', '?format comes before the suffix');
  const tag = await api.call('DELETE', '/tags/10.json', { as: [WRITE] });
  t.same([tag.statusCode, tag.json().Id], [200, 10], 'after a path parameter');
  const document = await api.call('GET', '/openapi.json');
  t.same([document.statusCode, document.json().openapi], [200, '3.1.0'], '/openapi.json is still the contract');
  const refused = await api.call('GET', '/api/DeleteTag.csv?Id=10');
  t.same([refused.statusCode, refused.headers['content-type']], [405, 'text/csv; charset=utf-8'], 'errors in the format asked for');
});

t.test('the rate limits count the predefined routes with the own route', async (t) => {
  const api = await buildTestApp(t, { data: rebateData, config: { RATE_LIMIT_MAX: 3 }, as: null });
  for (const url of ['/categories', '/api/CategoryQuery', '/json/reply/CategoryQuery']) t.equal((await api.call('GET', url)).statusCode, 200, url);
  expectRefusal(t, await api.call('GET', '/api/CategoryQuery'), { status: 429, code: 'TooManyRequests' });

  const lookups = await buildTestApp(t, { data: rebateData, config: { REBATE_LOOKUP_RATE_LIMIT_MAX: 3 } });
  const query = `CompanyId=${COMPANY_A}&RebateCodeSign=CARD-20&ServiceId=100&IncludeConnectedServices=true`;
  for (const path of ['/rebatecodes/getbysign', '/api/GetRebateCodeBySign', '/json/reply/getrebatecodebysign']) {
    t.equal((await lookups.call('GET', `${path}?${query}`)).statusCode, 200, path);
  }
  const limited = await lookups.call('GET', `/rebatecodes/getbysign?${query}`);
  expectRefusal(t, limited, { status: 429, code: 'TooManyRequests', name: 'the strict per-caller limit' });
  t.ok(Number(limited.headers['retry-after']) >= 1, 'with Retry-After');
});
