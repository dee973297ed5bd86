import t from 'tap';
import { queryData } from '../fixtures/queries.js';
import { buildTestApp, expectRefusal, snapshot } from '../helper.js';

// CategoryQuery (GET /categories), and through it the query parameters the query operations
// share (the contract's components/parameters: Skip, Take, OrderBy, OrderByDesc, Include,
// Fields, Meta), each once with exact values. Needs no credentials.

const ids = (body: { Results: Array<{ Id?: number }> }) => body.Results.map((item) => item.Id);

t.test('lists every category in Id order with Offset and Total, without credentials', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const res = await api.call('GET', '/categories');
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    Offset: 0,
    Total: 5,
    Results: [
      { Id: 1, Name: 'Hair salon', NormalizedName: 'hair-salon', Active: true },
      { Id: 2, Name: 'Beauty, nails & spa', NormalizedName: 'beauty-nails-spa', Active: true },
      { Id: 3, Name: 'Gym', NormalizedName: 'gym', Active: true },
      { Id: 4, Name: 'Padel "indoor"', NormalizedName: 'padel-indoor', Active: false },
      { Id: 5, Name: 'Gym', NormalizedName: 'gym-2', Active: false },
    ],
  });
  t.notOk('Meta' in res.json(), 'no Meta when none was sent');
});

t.test('Id keeps the one category; an unknown Id is an empty page', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  t.same((await api.call('GET', '/categories?Id=3')).json(), {
    Offset: 0, Total: 1, Results: [{ Id: 3, Name: 'Gym', NormalizedName: 'gym', Active: true }],
  });
  t.same((await api.call('GET', '/categories?Id=99')).json(), { Offset: 0, Total: 0, Results: [] });
});

t.test('Skip and Take page the results; Offset is Skip and Total the whole filter', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const page = (await api.call('GET', '/categories?Skip=1&Take=2')).json();
  t.same([page.Offset, page.Total, ids(page)], [1, 5, [2, 3]]);
  const past = (await api.call('GET', '/categories?Skip=10')).json();
  t.same([past.Offset, past.Total, ids(past)], [10, 5, []]);
  const none = (await api.call('GET', '/categories?Take=0')).json();
  t.same([none.Offset, none.Total, ids(none)], [0, 5, []]);
});

t.test('Take defaults to 100 and is capped at 1000 silently', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const extra = Array.from({ length: 1100 }, (_, i) => ({ id: 100 + i, name: `c${i}`, normalized_name: `c${i}`, active: 1 as const }));
  for (let i = 0; i < extra.length; i += 500) await api.store.db.insertInto('categories').values(extra.slice(i, i + 500)).execute();
  const byDefault = (await api.call('GET', '/categories')).json();
  t.same([byDefault.Total, byDefault.Results.length], [1105, 100]);
  const capped = await api.call('GET', '/categories?Take=5000&Skip=2');
  t.equal(capped.statusCode, 200);
  t.same([capped.json().Offset, capped.json().Total, capped.json().Results.length], [2, 1105, 1000]);
  t.same(ids(capped.json()).slice(0, 4), [3, 4, 5, 100]);
});

t.test('OrderBy orders ascending with the Id tiebreak; a - prefix orders one field descending', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  t.same(ids((await api.call('GET', '/categories?OrderBy=Name')).json()), [2, 3, 5, 1, 4]);
  t.same(ids((await api.call('GET', '/categories?OrderBy=name,-id')).json()), [2, 5, 3, 1, 4]);
  t.same(ids((await api.call('GET', '/categories?OrderBy=Active,Name')).json()), [5, 4, 2, 3, 1]);
});

t.test('OrderByDesc orders descending, a - prefix ascending, after OrderBy', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  t.same(ids((await api.call('GET', '/categories?OrderByDesc=Name')).json()), [4, 1, 3, 5, 2]);
  t.same(ids((await api.call('GET', '/categories?OrderByDesc=-Name,Id')).json()), [2, 5, 3, 1, 4]);
  t.same(ids((await api.call('GET', '/categories?OrderBy=Active&OrderByDesc=NormalizedName')).json()), [4, 5, 1, 3, 2]);
});

t.test('an unknown OrderBy or OrderByDesc field is 400 naming the parameter', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const res = await api.call('GET', '/categories?OrderBy=Name,Color');
  t.equal(res.statusCode, 400);
  const message = "'Color' is not a field that OrderBy can use; use one of: Id, Name, NormalizedName, Active.";
  t.same(res.json().ResponseStatus, {
    ErrorCode: 'InvalidOrderBy',
    Message: message,
    Errors: [{ ErrorCode: 'InvalidOrderBy', FieldName: 'OrderBy', Message: message }],
  });
  expectRefusal(t, await api.call('GET', '/categories?OrderByDesc=-Color'), {
    status: 400,
    field: 'OrderByDesc',
    message: /^'-Color' is not a field that OrderByDesc can use/,
  });
});

t.test('Fields fills only the named fields, matched case-insensitively; unknown names are ignored', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const some = (await api.call('GET', '/categories?Id=2&Fields=name,ID,Colour')).json();
  t.same(some.Results, [{ Id: 2, Name: 'Beauty, nails & spa' }]);
  t.same([some.Offset, some.Total], [0, 1], 'the envelope is not narrowed');
  const unknownOnly = (await api.call('GET', '/categories?Id=2&Fields=Colour,Size')).json();
  t.same(unknownOnly.Results, [{ Id: 2, Name: 'Beauty, nails & spa', NormalizedName: 'beauty-nails-spa', Active: true }],
    'no known field named: as if Fields were absent');
  const csv = await api.call('GET', '/categories?Id=2&Fields=active,name&format=csv');
  t.equal(csv.body, 'Name,Active\r\n"Beauty, nails & spa",true\r\n', 'CSV columns follow Fields too');
});

t.test('Include is accepted and Total is reported either way', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const res = await api.call('GET', '/categories?Include=Total&Take=1');
  t.equal(res.statusCode, 200);
  t.same(res.json(), { Offset: 0, Total: 5, Results: [{ Id: 1, Name: 'Hair salon', NormalizedName: 'hair-salon', Active: true }] });
});

t.test('Meta[key]=value is echoed in the envelope Meta', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const res = await api.call('GET', '/categories?Take=0&Meta[trace]=abc-1&Meta[page]=2');
  t.same(res.json(), { Offset: 0, Total: 5, Results: [], Meta: { trace: 'abc-1', page: '2' } });
});

t.test('Meta as one JSV or JSON text is echoed as the map it writes', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const meta = async (text: string) => (await api.call('GET', `/categories?Take=0&Meta=${encodeURIComponent(text)}`)).json().Meta;
  t.same(await meta('{trace:abc-1,page:2}'), { trace: 'abc-1', page: '2' }, 'JSV, as ServiceStack clients write it');
  t.same(await meta('{"trace":"abc-1","note":"a, b"}'), { trace: 'abc-1', note: 'a, b' }, 'JSON');
  t.same(await meta('{filter:{Id:1},tags:[a,b],empty:}'), { filter: '{Id:1}', tags: '[a,b]' }, 'a nested value keeps its JSV text; an empty one is left out');
});

t.test('a Meta text that is not a map is refused, naming Meta', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  for (const text of ['plain', '[a,b]', '{unclosed:[}']) {
    const res = await api.call('GET', `/categories?Meta=${encodeURIComponent(text)}`);
    t.equal(res.statusCode, 400, text);
    t.match(res.json().ResponseStatus.Errors, [{ FieldName: 'Meta' }], `${text}: the error names Meta`);
  }
});

t.test('CSV is the Results rows only, quoted where needed, header alone when empty', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const res = await api.call('GET', '/categories?format=csv&Skip=1&Take=3');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(res.headers['content-disposition'], 'attachment; filename="CategoryQuery.csv"');
  t.equal(res.body,
    'Id,Name,NormalizedName,Active\r\n2,"Beauty, nails & spa",beauty-nails-spa,true\r\n3,Gym,gym,true\r\n4,"Padel ""indoor""",padel-indoor,false\r\n');
  t.equal((await api.call('GET', '/categories.csv?Id=99')).body, 'Id,Name,NormalizedName,Active\r\n');
});

t.test('SQL-injection payloads are refused or ignored, never run, never 500', async (t) => {
  const api = await buildTestApp(t, { data: queryData, as: null });
  const tablesBefore = (await api.store.db.introspection.getTables()).map((table) => table.name).sort();
  const unchanged = await snapshot(api.store);
  for (const payload of ['Id;drop table categories', 'name desc--', "'", 'Name) --']) {
    for (const parameter of ['OrderBy', 'OrderByDesc']) {
      const res = await api.call('GET', `/categories?${parameter}=${encodeURIComponent(payload)}`);
      expectRefusal(t, res, { status: 400, field: parameter, name: `${parameter}=${payload}` });
    }
    const fields = await api.call('GET', `/categories?Fields=${encodeURIComponent(payload)}`);
    t.same([fields.statusCode, fields.json().Total, Object.keys(fields.json().Results[0])],
      [200, 5, ['Id', 'Name', 'NormalizedName', 'Active']], `Fields=${payload} ignored`);
    t.equal((await api.call('GET', `/categories?Id=${encodeURIComponent(payload)}`)).statusCode, 400, `Id=${payload}`);
  }
  t.same((await api.store.db.introspection.getTables()).map((table) => table.name).sort(), tablesBefore);
  await unchanged.assert(t);
});
