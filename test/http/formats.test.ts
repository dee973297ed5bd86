import t from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { READ, buildTestApp, expectRefusal } from '../helper.js';

// Wire formats (docs/decisions.md, "Wire format").

t.test('JSON is the default, with the contract’s field names', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories?Id=1', { as: null });
  t.match(res.headers['content-type'], /^application\/json/);
  t.same(res.json(), {
    Offset: 0,
    Total: 1,
    Results: [{ Id: 1, Name: 'Hair salon', NormalizedName: 'hair-salon', Active: true }],
  });
});

t.test('null and absent values are omitted from JSON', async (t) => {
  const api = await buildTestApp(t, {
    data: { ...baseData, Tags: [{ CompanyId: COMPANY_A, Id: 30, Name: 'Plain', Active: true }] },
  });
  const res = await api.call('DELETE', '/tags/30');
  t.equal(res.statusCode, 200);
  t.notOk('Color' in res.json(), 'no Color key');
  t.notMatch(res.body, /null/);
});

t.test('?format=csv selects CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories?format=csv&OrderBy=Id', { as: null });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(res.headers['content-disposition'], 'attachment; filename="CategoryQuery.csv"');
  t.equal(
    res.body,
    'Id,Name,NormalizedName,Active\r\n' +
      '1,Hair salon,hair-salon,true\r\n' +
      '2,"Beauty, nails & spa",beauty-nails-spa,true\r\n' +
      '3,Gym,gym,true\r\n' +
      '4,"Padel ""indoor""",padel-indoor,false\r\n',
  );
});

t.test('a .csv suffix selects CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories.csv?Id=3', { as: null });
  t.equal(res.statusCode, 200);
  t.equal(res.body, 'Id,Name,NormalizedName,Active\r\n3,Gym,gym,true\r\n');
});

t.test('Accept: text/csv selects CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories?Id=3', { as: null, headers: { accept: 'text/csv' } });
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
});

t.test('?format comes before the suffix, the suffix before Accept', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const a = await api.call('GET', '/categories.csv?format=json', { as: null });
  t.match(a.headers['content-type'], /^application\/json/);
  const b = await api.call('GET', '/categories.csv', { as: null, headers: { accept: 'application/json' } });
  t.match(b.headers['content-type'], /^text\/csv/);
  const c = await api.call('GET', '/categories', { as: null, headers: { accept: 'text/csv;q=0.5, application/json' } });
  t.match(c.headers['content-type'], /^application\/json/, 'the higher q wins');
});

t.test('an explicitly requested format other than JSON or CSV is 406', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const [url, headers] of [
    ['/categories?format=xml', {}],
    ['/categories', { accept: 'application/xml' }],
  ] as const) {
    expectRefusal(t, await api.call('GET', url, { as: null, headers }), { status: 406, code: 'NotAcceptable' });
  }
});

t.test('an empty query envelope in CSV is the header line alone', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories.csv?Id=999', { as: null });
  t.equal(res.body, 'Id,Name,NormalizedName,Active\r\n');
});

t.test('an object in CSV is one header row and one data row', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', '/tags/10?format=csv');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="DeleteTag.csv"');
  t.equal(
    res.body,
    'Id,CompanyId,Name,Scope,Color,SortOrder,Active,CreatedDate,ResponseStatus\r\n' +
      `10,${COMPANY_A},VIP,1,#ff0000,1,false,2026-01-02T03:04:05.000Z,\r\n`,
  );
});

t.test('Fields narrows JSON results and CSV columns', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const json = await api.call('GET', '/categories?Id=1&Fields=id,Name', { as: null });
  t.same(json.json().Results, [{ Id: 1, Name: 'Hair salon' }]);
  const csv = await api.call('GET', '/categories.csv?Id=1&Fields=Name', { as: null });
  t.equal(csv.body, 'Name\r\nHair salon\r\n');
});

t.test('errors follow the negotiated format', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', '/tags/999.csv');
  t.equal(res.statusCode, 404);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.match(res.body, /^ResponseStatus\r\n/);
  t.match(res.body, /ErrorCode:NotFound/);
});

t.test('a CSV request body is parsed, coerced by the schema and validated like JSON', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const bad = await api.call('PUT', `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`, { csv: 'url,eventtypes,disabled\r\nnot a url,[],maybe\r\n' });
  const fields = expectRefusal(t, bad, { status: 400 }).Errors.map((e: { FieldName: string }) => e.FieldName).sort();
  t.same([...new Set(fields)], ['Disabled', 'EventTypes', 'Url'], 'every failing field is listed');
});

t.test('a malformed CSV body is 400', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/resourcetypes', { csv: 'Name,Active\r\n"unterminated,true\r\n' });
  expectRefusal(t, res, { status: 400, code: 'SerializationException' });
});

t.test('any other request media type is 415', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/resourcetypes', { body: '<Name>x</Name>', headers: { 'content-type': 'application/xml' } });
  expectRefusal(t, res, { status: 415, code: 'UnsupportedMediaType' });
});

t.test('a missing body where one is required is 400', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/resourcetypes');
  t.equal(res.statusCode, 400);
});

t.test('request field names match case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('PUT', `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`, { body: { url: 'ftp://x', EVENTTYPES: [] } });
  const fields = expectRefusal(t, res, { status: 400 }).Errors.map((e: { FieldName: string }) => e.FieldName);
  t.ok(fields.includes('Url'), 'url was read as Url');
  t.ok(fields.includes('EventTypes'), 'EVENTTYPES was read as EventTypes');
});

t.test('the read role still gets CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/reports/booking/printout.csv', { as: [READ] });
  t.not(res.statusCode, 401);
});
