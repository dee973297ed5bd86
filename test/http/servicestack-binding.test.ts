import t from 'tap';
import { COMPANY_A, COMPANY_B, baseData } from '../fixtures.js';
import { rebateData } from '../fixtures/rebate-codes.js';
import { resourceData } from '../fixtures/resources.js';
import { PUBLIC_URL, webhookData } from '../fixtures/webhooks.js';
import { SUPERADMIN, buildTestApp, expectRefused } from '../helper.js';

// Request binding as ServiceStack does it (docs/decisions.md, "Wire format"), so that clients
// written for the original service work unchanged: names in any case; a request's fields from
// the path, the query string or the body, the path winning over the query string and the
// query string over the body; unknown names ignored.

const TRANSACTIONS = '/rebatecodes/transactions';
const CARD = 1008; // CARD-20: a value card of company A worth 20

const manyCategories = {
  ...baseData,
  Categories: Array.from({ length: 25 }, (_, i) => ({ Id: i + 1, Name: `Category ${i + 1}`, NormalizedName: `category-${i + 1}`, Active: true })),
};

t.test('query parameter names match in any case: ?skip=10&take=20&orderBy=Id pages', async (t) => {
  const api = await buildTestApp(t, { data: manyCategories, as: null });
  const all = (await api.call('GET', '/categories')).json();
  t.equal(all.Results.length, 25, 'without paging: every category');
  const page = (await api.call('GET', '/categories?skip=10&take=20&orderBy=Id')).json();
  t.same([page.Offset, page.Total, page.Results.map((r: { Id: number }) => r.Id)], [10, 25, Array.from({ length: 15 }, (_, i) => i + 11)]);
  const desc = (await api.call('GET', '/categories?TAKE=2&ORDERBYDESC=id&fields=NAME')).json();
  t.same(desc.Results, [{ Name: 'Category 25' }, { Name: 'Category 24' }], 'OrderByDesc and Fields in other cases too');
  const exact = (await api.call('GET', '/categories?take=1&Take=3&OrderBy=Id')).json();
  t.equal(exact.Results.length, 3, 'the exact spelling wins over another case of the same name');
});

t.test('integers stay plain decimal wherever a field comes from', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  for (const id of ['0x10', '1e3', ' 1008', '+1008', '1008.0']) {
    await expectRefused(t, api, 'POST', `${TRANSACTIONS}?RebateCodeId=${encodeURIComponent(id)}`, { body: { Amount: 1, Usage: 0, ChangeType: 'Increase' } }, { status: 400, field: 'RebateCodeId', name: `?RebateCodeId=${id}` });
  }
  for (const id of ['0xA', '1e1', '10.0']) {
    await expectRefused(t, api, 'DELETE', `/api/DeleteTag?Id=${id}`, {}, { status: 400, field: 'Id', name: `/api/DeleteTag?Id=${id}` });
    await expectRefused(t, api, 'DELETE', '/api/DeleteTag', { body: { Id: id } }, { status: 400, field: 'Id', name: `body Id ${id}` });
  }
});

t.test("UpdateWebhookEndpoint with CompanyId in the JSON body (the service's own sample) updates", async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const res = await api.call('PUT', '/webhook/endpoints/wh-1', { body: { CompanyId: COMPANY_A, Url: PUBLIC_URL, EventTypes: ['booking.created'], Disabled: false } });
  t.same([res.statusCode, res.json().Url], [200, PUBLIC_URL]);
  const lower = await api.call('PUT', '/webhook/endpoints/wh-1', { body: { companyid: COMPANY_A, url: PUBLIC_URL, eventtypes: ['a'] } });
  t.same([lower.statusCode, lower.json().EventTypes], [200, ['a']], 'in any case');
  await expectRefused(t, api, 'PUT', '/webhook/endpoints/wh-1', { body: { CompanyId: COMPANY_B, Url: PUBLIC_URL, EventTypes: ['b'] } }, { status: 401, code: 'Unauthorized', name: "another company's CompanyId in the body" });
  await expectRefused(t, api, 'PUT', '/webhook/endpoints/wh-b', { body: { CompanyId: COMPANY_A, Url: PUBLIC_URL, EventTypes: ['b'] } }, { status: 404, code: 'NotFound', name: "another company's endpoint" });
  const admin = await api.call('PUT', '/webhook/endpoints/shared', { as: [SUPERADMIN], body: { CompanyId: COMPANY_B, Url: PUBLIC_URL, EventTypes: ['b'] } });
  t.equal(admin.statusCode, 200, "a superadmin names B's endpoint by the body's CompanyId");
  const rows = await api.store.db.selectFrom('webhook_endpoints').select(['company_id', 'url']).where('id', '=', 'shared').orderBy('company_id').execute();
  t.same(rows.map((r) => r.url), ['https://a.example.org/', PUBLIC_URL], "B's endpoint changed, A's did not");
});

t.test('the path wins over the query string, the query string over the body', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const tag = await api.call('DELETE', '/tags/10?Id=11', { body: { Id: 20 } });
  t.same([tag.statusCode, tag.json().Id], [200, 10], 'the path Id');
  const active = await api.store.db.selectFrom('tags').select(['id', 'active']).orderBy('id').execute();
  t.same(active.map((r) => [r.id, Boolean(r.active)]), [[10, false], [11, true], [20, true]]);

  const resources = await buildTestApp(t, { data: resourceData });
  await expectRefused(t, resources, 'DELETE', '/resource/100?Force=false', { body: { Force: true } }, { status: 409, name: 'the query Force' });
  const forced = await resources.call('DELETE', '/resource/100', { body: { force: 'true' } });
  t.same([forced.statusCode, forced.json().Active], [200, false], 'Force from the body when the query has none');

  const cards = await buildTestApp(t, { data: rebateData });
  const res = await cards.call('POST', `${TRANSACTIONS}?changeType=Decrease&amount=3`, { body: { RebateCodeId: CARD, Amount: 5, Usage: 0, ChangeType: 'Increase' } });
  t.same([res.statusCode, res.json().RebateCodeTransactionItem.Amount], [200, -3], 'body fields in the query string win over the body');
  const webhooks = await buildTestApp(t, { data: webhookData });
  const both = await webhooks.call('PUT', `/webhook/endpoints/wh-1?CompanyId=${COMPANY_A}`, { body: { CompanyId: COMPANY_B, Url: PUBLIC_URL, EventTypes: ['a'] } });
  t.equal(both.statusCode, 200, "the query's CompanyId; the body's is not read");
});

t.test('a body made of body fields in the query string alone is validated as any body', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const res = await api.call('POST', `${TRANSACTIONS}?RebateCodeId=${CARD}&Amount=4&Usage=0&ChangeType=Decrease`);
  t.same([res.statusCode, res.json().RebateCodeTransactionItem.Amount], [200, -4]);
  await expectRefused(t, api, 'POST', `${TRANSACTIONS}?RebateCodeId=${CARD}&Amount=abc&Usage=0&ChangeType=Decrease`, {}, { status: 400, field: 'Amount' });
  await expectRefused(t, api, 'POST', `${TRANSACTIONS}?RebateCodeId=${CARD}&Usage=0`, {}, { status: 400, errors: [['NotEmpty', 'Amount'], ['NotEmpty', 'ChangeType']] });
  await expectRefused(t, api, 'POST', `${TRANSACTIONS}?Unknown=1`, {}, { status: 400, code: 'NotEmpty', message: 'The request body is required.' });
  await expectRefused(t, api, 'POST', `${TRANSACTIONS}?RebateCodeId=${CARD}`, { body: 'x', headers: { 'content-type': 'text/plain' } }, { status: 415 });
});

t.test('an empty JSON body is no body: bodiless operations answer, others want one', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const json = { 'content-type': 'application/json', 'content-length': '0' };
  const tag = await api.call('DELETE', '/tags/10', { headers: json });
  t.same([tag.statusCode, tag.json().Active], [200, false]);
  await expectRefused(t, api, 'POST', TRANSACTIONS, { headers: json }, { status: 400, code: 'NotEmpty', message: 'The request body is required.' });
  const fromQuery = await api.call('POST', `${TRANSACTIONS}?RebateCodeId=${CARD}&Amount=1&Usage=0&ChangeType=Increase`, { headers: json });
  t.equal(fromQuery.statusCode, 200, 'the query string may still carry the fields');
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: '{"RebateCodeId":', headers: { 'content-type': 'application/json' } }, { status: 400, code: 'SerializationException' });
});

t.test('a GET operation reads its fields from the query string only', async (t) => {
  const api = await buildTestApp(t, { data: baseData, as: null });
  const res = await api.inject({ method: 'GET', url: '/categories', headers: { 'content-type': 'application/json' }, payload: { Take: 1 } });
  t.same([res.statusCode, res.json().Results.length], [200, 4], 'a body sent with GET is not read');
});

t.test('field names of a body match in any case; unknown fields are ignored', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const res = await api.call('POST', TRANSACTIONS, { body: { rebatecodeid: CARD, AMOUNT: 1.5, uSaGe: 0, changetype: 'decrease', Bogus: 'x', Nested: { Any: 1 } } });
  t.same([res.statusCode, res.json().RebateCodeTransactionItem.Amount], [200, -1.5]);
  const query = await api.call('GET', `/categories?Foo=1&take=1&id=2`, { as: null });
  t.same(query.json().Results.map((r: { Id: number }) => r.Id), [2], 'unknown query parameters are ignored');
  const exact = await api.call('POST', TRANSACTIONS, { body: { rebatecodeid: 1, RebateCodeId: CARD, Amount: 1, Usage: 0, ChangeType: 'Increase' } });
  t.same([exact.statusCode, exact.json().RebateCodeTransactionItem.RebateCodeId], [200, CARD], 'the exact spelling wins');
});

t.test('a format field in a body is not the format parameter', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', '/tags/10', { body: { format: 'xml' } });
  t.same([res.statusCode, res.headers['content-type']], [200, 'application/json; charset=utf-8'], 'answered in JSON, not refused');
});
