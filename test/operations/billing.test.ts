import t from 'tap';
import { billingMethodsRepository } from '../../src/store/repositories/billing-methods.js';
import { COMPANY_A, queryData } from '../fixtures/queries.js';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp, type TestApp } from '../helper.js';

// BillingMethodQuery (GET /billing/methods): global billing methods with their countries.

const get = async (api: TestApp, query = '', roles: string[] = []) =>
  api.inject({ method: 'GET', url: `/billing/methods${query}`, headers: await bearer(COMPANY_A, roles) });
const ids = (body: { Results: Array<{ Id?: number }> }) => body.Results.map((item) => item.Id);

const invoice = { Id: 1, Name: 'Invoice', Description: 'Pay within 30 days', Countries: ['NO', 'SE'] };
const card = { Id: 2, Name: 'Card', Description: 'Visa and Mastercard', Countries: ['DK', 'FI', 'SE'] };
const klarna = { Id: 3, Name: 'Klarna', Description: 'Pay later', Countries: ['se'] };
const cash = { Id: 4, Name: 'Cash', Countries: [] };

t.test('lists every billing method with its countries (in code order; none is an empty list)', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { Offset: 0, Total: 4, Results: [invoice, card, klarna, cash] });
});

t.test('CountryId keeps the methods valid there, matching case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  for (const country of ['se', 'SE', 'sE']) {
    t.same((await get(api, `?CountryId=${country}`)).json(), { Offset: 0, Total: 3, Results: [invoice, card, klarna] }, country);
  }
  t.same((await get(api, '?CountryId=no')).json(), { Offset: 0, Total: 1, Results: [invoice] });
  t.same((await get(api, '?CountryId=US')).json(), { Offset: 0, Total: 0, Results: [] });
});

t.test('CountryId filters before paging: Total counts the filtered set', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  t.same((await get(api, '?CountryId=SE&Skip=1&Take=1')).json(), { Offset: 1, Total: 3, Results: [card] });
});

t.test("a page's countries are loaded in one query, however many methods it holds", async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  let queries = 0;
  const db = api.store.db.withPlugin({
    transformQuery: (args) => ((queries += 1), args.node),
    transformResult: async (args) => args.result,
  });
  const repository = billingMethodsRepository({ db, close: async () => {} });
  for (const take of [1, 4]) {
    queries = 0;
    const page = await repository.query({}, { Take: take });
    t.equal(page.rows.length, take);
    t.equal(queries, 3, `count, page and countries for ${take} row(s)`);
  }
});

t.test('Id, Name and Description can order; Countries (a list) cannot', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  t.same(ids((await get(api, '?OrderBy=Name')).json()), [2, 4, 1, 3]);
  t.same(ids((await get(api, '?OrderByDesc=Description')).json()), [2, 1, 3, 4]);
  t.same(ids((await get(api, '?OrderBy=-Id&CountryId=se')).json()), [3, 2, 1]);
  const res = await get(api, '?OrderBy=Countries');
  t.equal(res.statusCode, 400);
  t.same(res.json().ResponseStatus.Errors, [{
    ErrorCode: 'InvalidOrderBy',
    FieldName: 'OrderBy',
    Message: "'Countries' is not a field that OrderBy can use; use one of: Id, Name, Description.",
  }]);
});

t.test('Fields knows Countries, though it is not a column', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  t.same((await get(api, '?Fields=countries&Take=2')).json().Results, [{ Countries: ['NO', 'SE'] }, { Countries: ['DK', 'FI', 'SE'] }]);
  t.same((await get(api, '?Fields=Name,Bogus&Take=1')).json().Results, [{ Name: 'Invoice' }]);
});

t.test('auth: no token is 401; any authenticated caller may list, whatever its roles', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const anonymous = await api.inject({ method: 'GET', url: '/billing/methods' });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.json().ResponseStatus.ErrorCode, 'Unauthorized');
  for (const roles of [[], [READ], [WRITE], [SUPERADMIN]]) {
    const res = await get(api, '', roles);
    t.same([res.statusCode, res.json().Total], [200, 4], roles.join() || 'no role');
  }
});

t.test('CSV: the Results rows, Countries as one JSV cell', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api, '?format=csv');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="BillingMethodQuery.csv"');
  t.equal(res.body,
    'Id,Name,Description,Countries\r\n1,Invoice,Pay within 30 days,"[NO,SE]"\r\n2,Card,Visa and Mastercard,"[DK,FI,SE]"\r\n' +
    '3,Klarna,Pay later,"[se]"\r\n4,Cash,,"[]"\r\n');
  t.equal((await get(api, '?format=csv&CountryId=US')).body, 'Id,Name,Description,Countries\r\n');
});

t.test('SQL-injection payloads are refused or match nothing, and leave the tables intact', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const read = async () => [
    await api.store.db.selectFrom('billing_methods').selectAll().orderBy('id').execute(),
    await api.store.db.selectFrom('billing_method_countries').selectAll().orderBy('billing_method_id').orderBy('country_id').execute(),
  ];
  const before = await read();
  for (const payload of ["' or 1=1--", "SE'--", "'", 'x;drop']) {
    t.same((await get(api, `?CountryId=${encodeURIComponent(payload)}`)).json(), { Offset: 0, Total: 0, Results: [] }, payload);
  }
  for (const payload of ['Id;drop table billing_methods', 'name desc--', "'"]) {
    t.equal((await get(api, `?OrderBy=${encodeURIComponent(payload)}`)).statusCode, 400, payload);
    t.equal((await get(api, `?Fields=${encodeURIComponent(payload)}`)).json().Total, 4, `Fields=${payload} ignored`);
  }
  t.equal((await get(api, '?CountryId=SE;drop table x')).statusCode, 400, 'longer than a country code');
  t.same(await read(), before);
});
