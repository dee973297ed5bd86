import t from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { rebateData } from '../fixtures/rebate-codes.js';
import { buildTestApp, expectRefusal, expectRefused, SUPERADMIN, type Method } from '../helper.js';

// Numbers are plain decimal and guids canonical wherever they are sent (docs/decisions.md,
// "Wire format"; SECURITY.md, "Numbers and ids mean one thing"): in the path, the query
// string, JSON and CSV. Anything else is a 400 that changes nothing, never a different id or
// another company.

const VALUE_CARD = 1008; // CARD-20: a value card of company A worth 20
const TRANSACTIONS = '/rebatecodes/transactions';

t.test('an integer in a JSON body is plain decimal: "0x10" does not act on 16', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  for (const id of ['0x10', '1e3', '2.01e2', ' 1008', '1008 ', '+1008', '1_008', '0b11', 'Infinity']) {
    const body = { RebateCodeId: id, Amount: 5, Usage: 0, ChangeType: 'Decrease' };
    await expectRefused(t, api, 'POST', TRANSACTIONS, { body }, { status: 400, field: 'RebateCodeId', name: `RebateCodeId ${id}` });
  }
  const ok = await api.call('POST', TRANSACTIONS, { body: { RebateCodeId: String(VALUE_CARD), Amount: '5', Usage: 0, ChangeType: 'Decrease' } });
  t.equal(ok.statusCode, 200, 'decimal text is still read as a number');
});

t.test('a number in a CSV body is plain decimal: an Amount of 0x10 takes nothing off', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  for (const amount of ['0x10', ' 5', 'NaN', '5,0', 'Infinity']) {
    const csv = `RebateCodeId,Amount,Usage,ChangeType\r\n${VALUE_CARD},"${amount}",0,Decrease\r\n`;
    await expectRefused(t, api, 'POST', TRANSACTIONS, { csv }, { status: 400, field: 'Amount', name: `Amount ${amount}` });
  }
  const ok = await api.call('POST', TRANSACTIONS, { csv: `RebateCodeId,Amount,Usage,ChangeType\r\n${VALUE_CARD},2.5,0,Decrease\r\n` });
  t.equal(ok.statusCode, 200);
  t.equal(ok.json().RebateCodeTransactionItem.Amount, -2.5);
});

t.test('an id in the path is plain decimal: /tags/2.01e2 does not delete tag 201', async (t) => {
  const api = await buildTestApp(t, {
    data: { ...baseData, Tags: [...baseData.Tags, { CompanyId: COMPANY_A, Id: 201, Name: 'Two hundred and one', Active: true }] },
  });
  for (const id of ['2.01e2', '0xC9', '201.0', '%20201', '0o311']) {
    await expectRefused(t, api, 'DELETE', `/tags/${id}`, {}, { status: 400, field: 'Id', name: `/tags/${id}` });
  }
  t.equal((await api.call('DELETE', '/tags/201')).statusCode, 200);
});

t.test('a number in the query string is plain decimal', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const take of ['0x2', '2e0', '%202', '2.0']) {
    expectRefusal(t, await api.call('GET', `/categories?Take=${take}`, { as: null }), { status: 400, field: 'Take', name: `Take=${take}` });
  }
  const ok = await api.call('GET', '/categories?Take=2&Skip=1', { as: null });
  t.same([ok.statusCode, ok.json().Results.length, ok.json().Offset], [200, 2, 1]);
});

t.test('a company id is a canonical guid: urn:uuid and braces are refused', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const admin = [SUPERADMIN];
  for (const id of [`urn:uuid:${COMPANY_A}`, `{${COMPANY_A}}`, COMPANY_A.replaceAll('-', ''), ` ${COMPANY_A}`]) {
    const query = await api.call('GET', `/assistant/mcp/usage?CompanyId=${encodeURIComponent(id)}`, { as: admin });
    t.equal(query.statusCode, 400, `query CompanyId=${id}`);
    const body = { CompanyId: id, RebateCodeId: VALUE_CARD, Amount: 1, Usage: 0, ChangeType: 'Decrease' };
    await expectRefused(t, api, 'POST', TRANSACTIONS, { body, as: admin }, { status: 400, field: 'CompanyId', name: `body CompanyId=${id}` });
  }
  const upper = await api.call('GET', `/assistant/mcp/usage?CompanyId=${COMPANY_A.toUpperCase()}`, { as: admin });
  t.same([upper.statusCode, upper.json().CompanyId], [200, COMPANY_A], 'hex digits in any case name the same company');
});

t.test('the format is matched case-insensitively and the contract enum holds', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories?format=CSV&Take=1', { as: null });
  t.same([res.statusCode, res.headers['content-type']], [200, 'text/csv; charset=utf-8']);
  const json = await api.call('GET', '/categories?format=Json&Take=1', { as: null });
  t.match(json.headers['content-type'], /^application\/json/);
});

t.test('a known path with a method it does not serve is 405 with Allow', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const cases: Array<[string, string, string]> = [
    ['PATCH', '/tags/10', 'DELETE'],
    ['GET', '/rebatecodes/transactions', 'POST'],
    ['DELETE', '/categories', 'GET, HEAD'],
    ['POST', '/webhook/endpoints/wh_1', 'PUT'],
    ['PUT', '/resource/1', 'DELETE'],
  ];
  for (const [method, url, allow] of cases) {
    const res = await api.call(method as Method, url, { as: null });
    expectRefusal(t, res, { status: 405, code: 'MethodNotAllowed', name: `${method} ${url}` });
    t.equal(res.headers.allow, allow);
  }
  const csv = await api.call('PATCH', '/tags/10.csv', { as: null });
  t.same([csv.statusCode, csv.headers['content-type']], [405, 'text/csv; charset=utf-8'], 'in the format asked for');
  t.match(csv.body, /^ResponseStatus\r\n"\{ErrorCode:MethodNotAllowed,/);
  const unknown = await api.call('PATCH', '/no/such/path', { as: null });
  t.same([unknown.statusCode, unknown.headers.allow], [404, undefined], 'an unknown path stays 404');
});
