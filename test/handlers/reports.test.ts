import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { printouts, queryData } from '../fixtures/queries.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot } from '../helper.js';

// BookingPrintoutQuery (GET /reports/booking/printout): the company's printout layouts.

const URL = '/reports/booking/printout';
const ids = (body: { Results: Array<{ Id?: number }> }) => body.Results.map((item) => item.Id);

const daily = {
  Id: 1, Name: 'Daily list', HeaderLeftCell: '{Date}', HeaderMiddleCell: 'Bookings', HeaderRightCell: '{Page}',
  BodyCell: '{Time} {Customer}', FooterLeftCell: 'Salon A', FooterMiddleCell: '-', FooterRightCell: '{Printed}',
};

t.test("lists the caller's company's printouts, every cell filled, empty cells omitted", async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const res = await api.call('GET', URL);
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
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  t.same((await api.call('GET', `${URL}?Id=1`)).json(), { Offset: 0, Total: 1, Results: [daily] });
  t.same((await api.call('GET', `${URL}?Id=6`)).json(), { Offset: 0, Total: 0, Results: [] }, "B's printout 6 is not A's");
});

t.test('Skip and Take page the company set: Offset is Skip, Total the filtered count', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const page = (await api.call('GET', `${URL}?Skip=2&Take=2`)).json();
  t.same([page.Offset, page.Total, ids(page)], [2, 5, [3, 4]]);
});

t.test('every PrintoutQueryResponse field can order the query, nulls first, Id breaking ties', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
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
    const res = await api.call('GET', `${URL}?OrderBy=${field}`);
    t.equal(res.statusCode, 200, field);
    t.same(ids(res.json()), expected, `OrderBy=${field}`);
  }
  t.same(ids((await api.call('GET', `${URL}?OrderBy=Name,-Id`)).json()), [5, 3, 1, 4, 2]);
  t.same(ids((await api.call('GET', `${URL}?OrderByDesc=HeaderLeftCell`)).json()), [1, 4, 2, 3, 5]);
});

t.test('an unknown OrderBy field is 400 listing the fields that can order', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  expectRefusal(t, await api.call('GET', `${URL}?OrderByDesc=Company`), {
    status: 400,
    code: 'InvalidOrderBy',
    field: 'OrderByDesc',
    message: /use one of: Id, Name, HeaderLeftCell, HeaderMiddleCell, HeaderRightCell, BodyCell, FooterLeftCell, FooterMiddleCell, FooterRightCell\.$/,
  });
});

t.test('Fields narrows each printout; a field that is null stays omitted', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const res = (await api.call('GET', `${URL}?Fields=bodycell,Id&Skip=3&Meta[source]=export`)).json();
  t.same(res, { Offset: 3, Total: 5, Results: [{ Id: 4, BodyCell: 'line1\nline2' }, { Id: 5 }], Meta: { source: 'export' } });
});

t.test('auth: no token is 401', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  expectRefusal(t, await api.call('GET', URL, { as: null }), { status: 401, code: 'Unauthorized' });
});

t.test('auth: the read, write and superadmin roles may list; no role is 401', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  for (const role of [READ, WRITE, SUPERADMIN]) {
    const res = await api.call('GET', URL, { as: [role] });
    t.same([res.statusCode, res.json().Total], [200, 5], role);
  }
  expectRefusal(t, await api.call('GET', URL, { as: [] }), { status: 401, code: 'Unauthorized', name: 'no role' });
});

t.test("auth: another company's CompanyId is 401; the caller's own, in any case, is fine", async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  for (const role of [READ, WRITE]) {
    expectRefusal(t, await api.call('GET', `${URL}?CompanyId=${COMPANY_B}`, { as: [role] }), { status: 401, code: 'Unauthorized', name: role });
  }
  t.equal((await api.call('GET', `${URL}?CompanyId=${COMPANY_A.toUpperCase()}`)).json().Total, 5);
});

t.test('auth: a superadmin may list another company', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const res = await api.call('GET', `${URL}?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { Offset: 0, Total: 1, Results: [{ Id: 6, Name: 'Gym sheet', BodyCell: '{Member}' }] });
});

t.test('CSV: the Results rows only, JSV-looking and multi-line cells quoted', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const res = await api.call('GET', `${URL}?format=csv&OrderBy=Id&Take=2&Skip=3`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="BookingPrintoutQuery.csv"');
  t.equal(res.body,
    'Id,Name,HeaderLeftCell,HeaderMiddleCell,HeaderRightCell,BodyCell,FooterLeftCell,FooterMiddleCell,FooterRightCell\r\n' +
    '4,"Invoice, ""copy""",Z,,,"line1\nline2",,,\r\n' +
    '5,Archive,,,,,,,\r\n');
  const first = await api.call('GET', `${URL}.csv?Id=1&Fields=Name,HeaderLeftCell`);
  t.equal(first.body, 'Name,HeaderLeftCell\r\nDaily list,"{Date}"\r\n');
});

t.test('SQL-injection payloads are refused or ignored and leave the printouts intact', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: [READ] });
  const unchanged = await snapshot(api.store);
  for (const payload of ['Id;drop table printouts', 'name desc--', "'"]) {
    const q = encodeURIComponent(payload);
    t.equal((await api.call('GET', `${URL}?OrderBy=${q}`)).statusCode, 400, `OrderBy=${payload}`);
    t.equal((await api.call('GET', `${URL}?OrderByDesc=${q}`)).statusCode, 400, `OrderByDesc=${payload}`);
    t.equal((await api.call('GET', `${URL}?Id=${q}`)).statusCode, 400, `Id=${payload}`);
    // Not the caller's company: refused before validation; a superadmin's is validated.
    t.equal((await api.call('GET', `${URL}?CompanyId=${q}`)).statusCode, 401, `CompanyId=${payload}`);
    t.equal((await api.call('GET', `${URL}?CompanyId=${q}`, { as: [SUPERADMIN] })).statusCode, 400, `superadmin CompanyId=${payload}`);
    const fields = await api.call('GET', `${URL}?Fields=${q}`);
    t.same([fields.statusCode, fields.json().Results[0]], [200, daily], `Fields=${payload} ignored`);
  }
  await unchanged.assert(t);
});
