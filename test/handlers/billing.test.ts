import t from 'tap';
import { countStatements } from '../../src/store/statements.js';
import { billingMethodsRepository } from '../../src/store/repositories/billing-methods.js';
import { queryData } from '../fixtures/queries.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot } from '../helper.js';

// BillingMethodQuery (GET /billing/methods): global billing methods with their countries.

const URL = '/billing/methods';
const ids = (body: { Results: Array<{ Id?: number }> }) => body.Results.map((item) => item.Id);

const invoice = { Id: 1, Name: 'Invoice', Description: 'Pay within 30 days', Countries: ['NO', 'SE'] };
const card = { Id: 2, Name: 'Card', Description: 'Visa and Mastercard', Countries: ['DK', 'FI', 'SE'] };
const klarna = { Id: 3, Name: 'Klarna', Description: 'Pay later', Countries: ['se'] };
const cash = { Id: 4, Name: 'Cash', Countries: [] };

t.test('lists every billing method with its countries (in code order; none is an empty list)', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  const res = await api.call('GET', URL);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { Offset: 0, Total: 4, Results: [invoice, card, klarna, cash] });
});

t.test('CountryId keeps the methods valid there, matching case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  for (const country of ['se', 'SE', 'sE']) {
    t.same((await api.call('GET', `${URL}?CountryId=${country}`)).json(), { Offset: 0, Total: 3, Results: [invoice, card, klarna] }, country);
  }
  t.same((await api.call('GET', `${URL}?CountryId=no`)).json(), { Offset: 0, Total: 1, Results: [invoice] });
  t.same((await api.call('GET', `${URL}?CountryId=US`)).json(), { Offset: 0, Total: 0, Results: [] });
});

t.test('CountryId filters before paging: Total counts the filtered set', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  t.same((await api.call('GET', `${URL}?CountryId=SE&Skip=1&Take=1`)).json(), { Offset: 1, Total: 3, Results: [card] });
});

t.test("a page, its Total and its methods' countries are one query, however many methods it holds", async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  const repository = billingMethodsRepository(api.store);
  for (const take of [1, 4]) {
    const { result: page, statements } = await countStatements(() => repository.query({}, { Take: take }));
    t.equal(page.rows.length, take);
    t.equal(statements, 1, `page, total and countries for ${take} row(s)`);
  }
});

t.test('Id, Name and Description can order; Countries (a list) cannot', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  t.same(ids((await api.call('GET', `${URL}?OrderBy=Name`)).json()), [2, 4, 1, 3]);
  t.same(ids((await api.call('GET', `${URL}?OrderByDesc=Description`)).json()), [2, 1, 3, 4]);
  t.same(ids((await api.call('GET', `${URL}?OrderBy=-Id&CountryId=se`)).json()), [3, 2, 1]);
  const res = await api.call('GET', `${URL}?OrderBy=Countries`);
  t.equal(res.statusCode, 400);
  t.same(res.json().ResponseStatus.Errors, [{
    ErrorCode: 'InvalidOrderBy',
    FieldName: 'OrderBy',
    Message: "'Countries' is not a field that OrderBy can use; use one of: Id, Name, Description.",
  }]);
});

t.test('Fields knows Countries, though it is not a column', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  t.same((await api.call('GET', `${URL}?Fields=countries&Take=2`)).json().Results, [{ Countries: ['NO', 'SE'] }, { Countries: ['DK', 'FI', 'SE'] }]);
  t.same((await api.call('GET', `${URL}?Fields=Name,Bogus&Take=1`)).json().Results, [{ Name: 'Invoice' }]);
});

t.test('auth: no token is 401; any authenticated caller may list, whatever its roles', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  expectRefusal(t, await api.call('GET', URL, { as: null }), { status: 401, code: 'Unauthorized' });
  for (const roles of [[], [READ], [WRITE], [SUPERADMIN]]) {
    const res = await api.call('GET', URL, { as: roles });
    t.same([res.statusCode, res.json().Total], [200, 4], roles.join() || 'no role');
  }
});

t.test('CSV: the Results rows, Countries as one JSV cell', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  const res = await api.call('GET', `${URL}?format=csv`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="BillingMethodQuery.csv"');
  t.equal(res.body,
    'Id,Name,Description,Countries\r\n1,Invoice,Pay within 30 days,"[NO,SE]"\r\n2,Card,Visa and Mastercard,"[DK,FI,SE]"\r\n' +
    '3,Klarna,Pay later,"[se]"\r\n4,Cash,,"[]"\r\n');
  t.equal((await api.call('GET', `${URL}?format=csv&CountryId=US`)).body, 'Id,Name,Description,Countries\r\n');
});

t.test('SQL-injection payloads are refused or match nothing, and leave the tables intact', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [] });
  const unchanged = await snapshot(api.store);
  for (const payload of ["' or 1=1--", "SE'--", "'", 'x;drop']) {
    t.same((await api.call('GET', `${URL}?CountryId=${encodeURIComponent(payload)}`)).json(), { Offset: 0, Total: 0, Results: [] }, payload);
  }
  for (const payload of ['Id;drop table billing_methods', 'name desc--', "'"]) {
    t.equal((await api.call('GET', `${URL}?OrderBy=${encodeURIComponent(payload)}`)).statusCode, 400, payload);
    t.equal((await api.call('GET', `${URL}?Fields=${encodeURIComponent(payload)}`)).json().Total, 4, `Fields=${payload} ignored`);
  }
  t.equal((await api.call('GET', `${URL}?CountryId=SE;drop table x`)).statusCode, 400, 'longer than a country code');
  await unchanged.assert(t);
});
