import t from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { READ, bearer, buildTestApp } from '../helper.js';

// product-decisions §3: wire formats.

t.test('JSON is the default, with the document’s field names', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories?Id=1' });
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
  const res = await api.inject({ method: 'DELETE', url: '/tags/30', headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 200);
  t.notOk('Color' in res.json(), 'no Color key');
  t.notMatch(res.body, /null/);
});

t.test('?format=csv selects CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories?format=csv&OrderBy=Id' });
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
  const res = await api.inject({ method: 'GET', url: '/categories.csv?Id=3' });
  t.equal(res.statusCode, 200);
  t.equal(res.body, 'Id,Name,NormalizedName,Active\r\n3,Gym,gym,true\r\n');
});

t.test('Accept: text/csv selects CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories?Id=3', headers: { accept: 'text/csv' } });
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
});

t.test('?format comes before the suffix, the suffix before Accept', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const a = await api.inject({ method: 'GET', url: '/categories.csv?format=json' });
  t.match(a.headers['content-type'], /^application\/json/);
  const b = await api.inject({ method: 'GET', url: '/categories.csv', headers: { accept: 'application/json' } });
  t.match(b.headers['content-type'], /^text\/csv/);
  const c = await api.inject({ method: 'GET', url: '/categories', headers: { accept: 'text/csv;q=0.5, application/json' } });
  t.match(c.headers['content-type'], /^application\/json/, 'the higher q wins');
});

t.test('an explicitly requested format other than JSON or CSV is 406', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const request of [
    { url: '/categories?format=xml', headers: {} },
    { url: '/categories', headers: { accept: 'application/xml' } },
  ]) {
    const res = await api.inject({ method: 'GET', ...request });
    t.equal(res.statusCode, 406);
    t.equal(res.json().ResponseStatus.ErrorCode, 'NotAcceptable');
  }
});

t.test('an empty query envelope in CSV is the header line alone', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories.csv?Id=999' });
  t.equal(res.body, 'Id,Name,NormalizedName,Active\r\n');
});

t.test('an object in CSV is one header row and one data row', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'DELETE', url: '/tags/10?format=csv', headers: await bearer(COMPANY_A) });
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
  const json = await api.inject({ method: 'GET', url: '/categories?Id=1&Fields=id,Name' });
  t.same(json.json().Results, [{ Id: 1, Name: 'Hair salon' }]);
  const csv = await api.inject({ method: 'GET', url: '/categories.csv?Id=1&Fields=Name' });
  t.equal(csv.body, 'Name\r\nHair salon\r\n');
});

t.test('errors follow the negotiated format', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'DELETE', url: '/tags/999.csv', headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 404);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.match(res.body, /^ResponseStatus\r\n/);
  t.match(res.body, /ErrorCode:NotFound/);
});

t.test('a CSV request body is parsed, coerced by the schema and validated like JSON', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const headers = { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' };
  const bad = await api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`,
    headers,
    payload: 'url,eventtypes,disabled\r\nnot a url,[],maybe\r\n',
  });
  t.equal(bad.statusCode, 400);
  const fields = bad.json().ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName).sort();
  t.same([...new Set(fields)], ['Disabled', 'EventTypes', 'Url'], 'every failing field is listed');
});

t.test('a malformed CSV body is 400', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'POST',
    url: '/resourcetypes',
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: 'Name,Active\r\n"unterminated,true\r\n',
  });
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.ErrorCode, 'SerializationException');
});

t.test('any other request media type is 415', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'POST',
    url: '/resourcetypes',
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'application/xml' },
    payload: '<Name>x</Name>',
  });
  t.equal(res.statusCode, 415);
  t.equal(res.json().ResponseStatus.ErrorCode, 'UnsupportedMediaType');
});

t.test('a missing body where one is required is 400', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'POST', url: '/resourcetypes', headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 400);
});

t.test('request field names match case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'PUT',
    url: `/webhook/endpoints/wh1?CompanyId=${COMPANY_A}`,
    headers: await bearer(COMPANY_A),
    payload: { url: 'ftp://x', EVENTTYPES: [] },
  });
  t.equal(res.statusCode, 400);
  const fields = res.json().ResponseStatus.Errors.map((e: { FieldName: string }) => e.FieldName);
  t.ok(fields.includes('Url'), 'url was read as Url');
  t.ok(fields.includes('EventTypes'), 'EVENTTYPES was read as EventTypes');
});

t.test('the read role still gets CSV', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/reports/booking/printout.csv', headers: await bearer(COMPANY_A, [READ]) });
  t.not(res.statusCode, 401);
});
