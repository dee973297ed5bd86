import t, { type Test } from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { rebateData } from '../fixtures/rebate-codes.js';
import { bearer, buildTestApp, SUPERADMIN, type TestApp } from '../helper.js';
import { stateDiff, storeState } from '../robustness/digest.js';

// Numbers are plain decimal and guids canonical wherever they are sent (product-decisions
// §3): in the path, the query string, JSON and CSV. Anything else is a 400 that changes
// nothing, never a different id or another company.

const VALUE_CARD = 1008; // CARD-20: a value card of company A worth 20

async function refusedUnchanged(t: Test, api: TestApp, request: Parameters<TestApp['inject']>[0], field: string) {
  const before = await storeState(api.store);
  const res = await api.inject(request);
  t.equal(res.statusCode, 400, `${request.method} ${request.url} is refused`);
  t.ok(
    res.json().ResponseStatus.Errors.some((e: { FieldName: string }) => e.FieldName === field),
    `the refusal names ${field}: ${res.body.slice(0, 300)}`,
  );
  const after = await storeState(api.store);
  t.equal(after.digest, before.digest, `nothing changed\n${stateDiff(before, after)}`);
}

t.test('an integer in a JSON body is plain decimal: "0x10" does not act on 16', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const headers = await bearer(COMPANY_A);
  for (const id of ['0x10', '1e3', '2.01e2', ' 1008', '1008 ', '+1008', '1_008', '0b11', 'Infinity']) {
    const payload = { RebateCodeId: id, Amount: 5, Usage: 0, ChangeType: 'Decrease' };
    await refusedUnchanged(t, api, { method: 'POST', url: '/rebatecodes/transactions', headers, payload }, 'RebateCodeId');
  }
  const ok = await api.inject({
    method: 'POST',
    url: '/rebatecodes/transactions',
    headers,
    payload: { RebateCodeId: String(VALUE_CARD), Amount: '5', Usage: 0, ChangeType: 'Decrease' },
  });
  t.equal(ok.statusCode, 200, 'decimal text is still read as a number');
});

t.test('a number in a CSV body is plain decimal: an Amount of 0x10 takes nothing off', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const headers = { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' };
  for (const amount of ['0x10', ' 5', 'NaN', '5,0', 'Infinity']) {
    const payload = `RebateCodeId,Amount,Usage,ChangeType\r\n${VALUE_CARD},"${amount}",0,Decrease\r\n`;
    await refusedUnchanged(t, api, { method: 'POST', url: '/rebatecodes/transactions', headers, payload }, 'Amount');
  }
  const payload = `RebateCodeId,Amount,Usage,ChangeType\r\n${VALUE_CARD},2.5,0,Decrease\r\n`;
  const ok = await api.inject({ method: 'POST', url: '/rebatecodes/transactions', headers, payload });
  t.equal(ok.statusCode, 200);
  t.equal(ok.json().RebateCodeTransactionItem.Amount, -2.5);
});

t.test('an id in the path is plain decimal: /tags/2.01e2 does not delete tag 201', async (t) => {
  const api = await buildTestApp(t, {
    data: { ...baseData, Tags: [...baseData.Tags, { CompanyId: COMPANY_A, Id: 201, Name: 'Two hundred and one', Active: true }] },
  });
  const headers = await bearer(COMPANY_A);
  for (const id of ['2.01e2', '0xC9', '201.0', '%20201', '0o311']) {
    await refusedUnchanged(t, api, { method: 'DELETE', url: `/tags/${id}`, headers }, 'Id');
  }
  t.equal((await api.inject({ method: 'DELETE', url: '/tags/201', headers })).statusCode, 200);
});

t.test('a number in the query string is plain decimal', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const take of ['0x2', '2e0', '%202', '2.0']) {
    const res = await api.inject({ method: 'GET', url: `/categories?Take=${take}` });
    t.equal(res.statusCode, 400, `Take=${take}`);
    t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'Take');
  }
  const ok = await api.inject({ method: 'GET', url: '/categories?Take=2&Skip=1' });
  t.same([ok.statusCode, ok.json().Results.length, ok.json().Offset], [200, 2, 1]);
});

t.test('a company id is a canonical guid: urn:uuid and braces are refused', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  const admin = await bearer(COMPANY_A, [SUPERADMIN]);
  for (const id of [`urn:uuid:${COMPANY_A}`, `{${COMPANY_A}}`, COMPANY_A.replaceAll('-', ''), ` ${COMPANY_A}`]) {
    const q = encodeURIComponent(id);
    const query = await api.inject({ method: 'GET', url: `/assistant/mcp/usage?CompanyId=${q}`, headers: admin });
    t.equal(query.statusCode, 400, `query CompanyId=${id}`);
    const payload = { CompanyId: id, RebateCodeId: VALUE_CARD, Amount: 1, Usage: 0, ChangeType: 'Decrease' };
    await refusedUnchanged(t, api, { method: 'POST', url: '/rebatecodes/transactions', headers: admin, payload }, 'CompanyId');
  }
  const upper = await api.inject({ method: 'GET', url: `/assistant/mcp/usage?CompanyId=${COMPANY_A.toUpperCase()}`, headers: admin });
  t.same([upper.statusCode, upper.json().CompanyId], [200, COMPANY_A], 'hex digits in any case name the same company');
});

t.test('the format is matched case-insensitively and the contract enum holds', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories?format=CSV&Take=1' });
  t.same([res.statusCode, res.headers['content-type']], [200, 'text/csv; charset=utf-8']);
  const json = await api.inject({ method: 'GET', url: '/categories?format=Json&Take=1' });
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
    const res = await api.inject({ method: method as 'GET', url });
    t.equal(res.statusCode, 405, `${method} ${url}`);
    t.equal(res.headers.allow, allow);
    t.equal(res.json().ResponseStatus.ErrorCode, 'MethodNotAllowed');
  }
  const csv = await api.inject({ method: 'PATCH', url: '/tags/10.csv' });
  t.same([csv.statusCode, csv.headers['content-type']], [405, 'text/csv; charset=utf-8'], 'in the format asked for');
  t.match(csv.body, /^ResponseStatus\r\n"\{ErrorCode:MethodNotAllowed,/);
  const unknown = await api.inject({ method: 'PATCH', url: '/no/such/path' });
  t.same([unknown.statusCode, unknown.headers.allow], [404, undefined], 'an unknown path stays 404');
});
