import t from 'tap';
import { COMPANY_A, COMPANY_B, printouts, queryData } from '../fixtures/queries.js';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp, type TestApp } from '../helper.js';

// BookingPrintoutQuery (GET /reports/booking/printout): the company's printout layouts.

const URL = '/reports/booking/printout';
const get = async (api: TestApp, query = '', roles: string[] = [READ], company = COMPANY_A) =>
  api.inject({ method: 'GET', url: `${URL}${query}`, headers: await bearer(company, roles) });
const ids = (body: { Results: Array<{ Id?: number }> }) => body.Results.map((item) => item.Id);

const daily = {
  Id: 1, Name: 'Daily list', HeaderLeftCell: '{Date}', HeaderMiddleCell: 'Bookings', HeaderRightCell: '{Page}',
  BodyCell: '{Time} {Customer}', FooterLeftCell: 'Salon A', FooterMiddleCell: '-', FooterRightCell: '{Printed}',
};

t.test("lists the caller's company's printouts, every cell filled, empty cells omitted", async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api);
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    Offset: 0,
    Total: 5,
    Results: [
      daily,
      { Id: 2, Name: 'Weekly', HeaderLeftCell: 'Week {Week}', BodyCell: '{Day}: {Count}' },
      { Id: 3, Name: 'Daily list', HeaderLeftCell: 'Copy', BodyCell: 'b' },
      { Id: 4, Name: 'Invoice, "copy"', HeaderLeftCell: 'Z', BodyCell: 'line1\nline2' },
      { Id: 5, Name: 'Archive' },
    ],
  });
});

t.test("Id keeps that printout; another company's Id finds nothing", async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  t.same((await get(api, '?Id=1')).json(), { Offset: 0, Total: 1, Results: [daily] });
  t.same((await get(api, '?Id=6')).json(), { Offset: 0, Total: 0, Results: [] }, "B's printout 6 is not A's");
});

t.test('Skip and Take page the company set: Offset is Skip, Total the filtered count', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const page = (await get(api, '?Skip=2&Take=2')).json();
  t.same([page.Offset, page.Total, ids(page)], [2, 5, [3, 4]]);
});

t.test('every PrintoutQueryResponse field can order the query, nulls first, Id breaking ties', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const own = printouts.filter((p) => p.CompanyId === COMPANY_A) as Array<Record<string, string | number | undefined>>;
  for (const field of Object.keys(daily)) {
    const expected = [...own]
      .sort((a, b) => {
        const [x, y] = [a[field], b[field]];
        if (x === y) return Number(a.Id) - Number(b.Id);
        if (x === undefined) return -1;
        if (y === undefined) return 1;
        return x < y ? -1 : 1;
      })
      .map((p) => p.Id);
    const res = await get(api, `?OrderBy=${field}`);
    t.equal(res.statusCode, 200, field);
    t.same(ids(res.json()), expected, `OrderBy=${field}`);
  }
  t.same(ids((await get(api, '?OrderBy=Name,-Id')).json()), [5, 3, 1, 4, 2]);
  t.same(ids((await get(api, '?OrderByDesc=HeaderLeftCell')).json()), [1, 4, 2, 3, 5]);
});

t.test('an unknown OrderBy field is 400 listing the fields that can order', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api, '?OrderByDesc=Company');
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.ErrorCode, 'InvalidOrderBy');
  t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'OrderByDesc');
  t.match(res.json().ResponseStatus.Message, /use one of: Id, Name, HeaderLeftCell, HeaderMiddleCell, HeaderRightCell, BodyCell, FooterLeftCell, FooterMiddleCell, FooterRightCell\.$/);
});

t.test('Fields narrows each printout; a field that is null stays omitted', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = (await get(api, '?Fields=bodycell,Id&Skip=3&Meta[source]=export')).json();
  t.same(res, { Offset: 3, Total: 5, Results: [{ Id: 4, BodyCell: 'line1\nline2' }, { Id: 5 }], Meta: { source: 'export' } });
});

t.test('auth: no token is 401', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await api.inject({ method: 'GET', url: URL });
  t.equal(res.statusCode, 401);
  t.same(res.json().ResponseStatus.ErrorCode, 'Unauthorized');
});

t.test('auth: the read, write and superadmin roles may list; no role is 401', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  for (const role of [READ, WRITE, SUPERADMIN]) {
    const res = await get(api, '', [role]);
    t.same([res.statusCode, res.json().Total], [200, 5], role);
  }
  const none = await get(api, '', []);
  t.equal(none.statusCode, 401);
  t.equal(none.json().ResponseStatus.ErrorCode, 'Unauthorized');
});

t.test("auth: another company's CompanyId is 401; the caller's own, in any case, is fine", async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  for (const role of [READ, WRITE]) {
    const res = await get(api, `?CompanyId=${COMPANY_B}`, [role]);
    t.equal(res.statusCode, 401, role);
    t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized');
  }
  t.equal((await get(api, `?CompanyId=${COMPANY_A.toUpperCase()}`)).json().Total, 5);
});

t.test('auth: a superadmin may list another company', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api, `?CompanyId=${COMPANY_B}`, [SUPERADMIN]);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { Offset: 0, Total: 1, Results: [{ Id: 6, Name: 'Gym sheet', BodyCell: '{Member}' }] });
});

t.test('CSV: the Results rows only, JSV-looking and multi-line cells quoted', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const res = await get(api, '?format=csv&OrderBy=Id&Take=2&Skip=3');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="BookingPrintoutQuery.csv"');
  t.equal(res.body,
    'Id,Name,HeaderLeftCell,HeaderMiddleCell,HeaderRightCell,BodyCell,FooterLeftCell,FooterMiddleCell,FooterRightCell\r\n' +
    '4,"Invoice, ""copy""",Z,,,"line1\nline2",,,\r\n' +
    '5,Archive,,,,,,,\r\n');
  const first = await get(api, '.csv?Id=1&Fields=Name,HeaderLeftCell');
  t.equal(first.body, 'Name,HeaderLeftCell\r\nDaily list,"{Date}"\r\n');
});

t.test('SQL-injection payloads are refused or ignored and leave the printouts intact', async (t) => {
  const api = await buildTestApp(t, { data: queryData });
  const before = await api.store.db.selectFrom('printouts').selectAll().orderBy('id').execute();
  for (const payload of ['Id;drop table printouts', 'name desc--', "'"]) {
    const q = encodeURIComponent(payload);
    t.equal((await get(api, `?OrderBy=${q}`)).statusCode, 400, `OrderBy=${payload}`);
    t.equal((await get(api, `?OrderByDesc=${q}`)).statusCode, 400, `OrderByDesc=${payload}`);
    t.equal((await get(api, `?Id=${q}`)).statusCode, 400, `Id=${payload}`);
    // Not the caller's company: refused before validation; a superadmin's is validated.
    t.equal((await get(api, `?CompanyId=${q}`)).statusCode, 401, `CompanyId=${payload}`);
    t.equal((await get(api, `?CompanyId=${q}`, [SUPERADMIN])).statusCode, 400, `superadmin CompanyId=${payload}`);
    const fields = await get(api, `?Fields=${q}`);
    t.same([fields.statusCode, fields.json().Results[0]], [200, daily], `Fields=${payload} ignored`);
  }
  t.same(await api.store.db.selectFrom('printouts').selectAll().orderBy('id').execute(), before);
});
