import net from 'node:net';
import { Writable } from 'node:stream';
import t from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { buildLoggedApp, buildTestApp, expectRefusal, expectRefused, rawExchange, READ, snapshot, SUPERADMIN, TEST_SECRET, token, WRITE } from '../helper.js';

// What a hostile client sends, and what it must never get: an answer much larger than its
// request, an error-level log line, altered text stored, or a caller without a company let
// through (SECURITY.md, "Hostile requests get small, correct refusals").

const data = buildDemoData();
const ENDPOINT = `/webhook/endpoints/wh_bookings?CompanyId=${DEMO_COMPANY_A}`;
const MAX_ERROR_BODY = 64 * 1024;

t.test('no refusal is larger than 64 KiB, whatever the request holds', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const cases: Array<[name: string, method: 'PUT' | 'POST', url: string, options: Parameters<typeof api.call>[2], field: string]> = [
    ['EventTypes as one string of 1,000,000 commas', 'PUT', ENDPOINT, json({ Url: 'https://hooks.example/a', EventTypes: ','.repeat(1_000_000) }), 'EventTypes'],
    ['EventTypes as 10,000 empty strings', 'PUT', ENDPOINT, json({ Url: 'https://hooks.example/a', EventTypes: Array(10_000).fill('') }), 'EventTypes'],
    ['Services of CreateMessageTemplate as 200,000 commas', 'POST', '/messages/templates', json({ TypeId: 1, Name: 'n', Title: 't', Body: 'b', Services: ','.repeat(200_000) }), 'Services'],
    ['Resources of CreateResourceType as 100,000 empty objects', 'POST', '/resourcetypes', json({ Name: 'n', Resources: Array(100_000).fill({}) }), 'Resources'],
    ['EventTypes in a CSV body', 'PUT', ENDPOINT, { csv: `Url,EventTypes\r\nhttps://hooks.example/a,"[${','.repeat(500_000)}]"\r\n` }, 'EventTypes'],
  ];
  for (const [name, method, url, options, field] of cases) {
    const unchanged = await snapshot(api.store);
    const res = await api.call(method, url, options);
    t.ok(res.body.length <= MAX_ERROR_BODY, `${name}: ${res.body.length} bytes`);
    const status = String(res.headers['content-type']).startsWith('text/csv') ? undefined : expectRefusal(t, res, { status: 400, code: 'Length', name });
    if (status) t.strictSame(status.Errors.map((e) => e.FieldName), [field], `${name}: the list's size rule stands for its items`);
    else t.match(res.body, /^ResponseStatus\r\n/, `${name}: a CSV refusal`);
    await unchanged.assert(t, `${name}: nothing changed`);
  }
});

t.test('a refusal lists at most 100 errors, and its Message counts the rest', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  // 1,000 resources (the most allowed), each with two refused fields: 2,000 failures.
  const Resources = Array.from({ length: 1000 }, () => ({ Id: 0, Priority: 'first' }));
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'Rooms', Resources } });
  const status = expectRefusal(t, res, { status: 400 });
  t.equal(status.Errors.length, 100);
  t.match(status.Message, / 1900 more errors were left out\.$/);
  t.ok(status.Message.startsWith(status.Errors[0].Message), 'the Message is still the first failure\'s');
});

t.test('an echoed value is cut to an excerpt', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const longName = 'Unknown'.repeat(20_000);
  const res = await api.call('POST', '/resourcetypes', { csv: `Name,${longName},${longName.toLowerCase()}\r\nRooms,1,2\r\n` });
  const status = expectRefusal(t, res, { status: 400, code: 'SerializationException' });
  t.ok(status.Message.length < 200, `the message quotes an excerpt (${status.Message.length} characters)`);
  t.ok(res.body.length < 1000);
});

t.test('a malformed chunked body is a client error, never an error-level log line', async (t) => {
  let logs = '';
  const logStream = new Writable({ write: (chunk, _encoding, done) => {
    logs += chunk.toString();
    done();
  } });
  // The default rate limit is on: it reads the client's address, which a connection that
  // is already gone no longer has. At `warn` nothing else reads the address first.
  const { app } = await buildLoggedApp(t, logStream, { LOG_LEVEL: 'warn', RATE_LIMIT_MAX: 600 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;
  const auth = `Authorization: Bearer ${await token(DEMO_COMPANY_A)}\r\n`;
  for (const path of ['/resourcetypes', '/messages/templates', '/rebatecodes/transactions', '/nowhere']) {
    for (const credentials of ['', auth]) {
      const answer = await rawExchange(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${credentials}Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n`,
      );
      t.match(answer, /^HTTP\/1\.1 400 /, `${path}${credentials ? ' with a token' : ''}: 400`);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const errors = logs.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((line) => line.level >= 50);
  t.strictSame(errors, [], 'no error-level log line');
});

t.test('bytes that are not UTF-8 are refused with 400 and nothing is stored', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const notUtf8 = Buffer.from([0x52, 0x6f, 0x6f, 0x6d, 0xff, 0xfe]);
  const jsonBody = Buffer.concat([Buffer.from('{"Name":"'), notUtf8, Buffer.from('"}')]);
  await expectRefused(t, api, 'POST', '/resourcetypes', { body: jsonBody, headers: { 'content-type': 'application/json' } },
    { status: 400, code: 'SerializationException', message: 'The request body is not valid UTF-8.', name: 'JSON body' });
  const csvBody = Buffer.concat([Buffer.from('Name,Description\r\n'), notUtf8, Buffer.from(',x\r\n')]);
  await expectRefused(t, api, 'POST', '/resourcetypes', { body: csvBody, headers: { 'content-type': 'text/csv' } },
    { status: 400, code: 'SerializationException', message: 'The request body is not valid UTF-8.', name: 'CSV body' });
  // A lone continuation byte, and the two bytes of an overlong '/'.
  for (const bytes of ['%FF', '%80', '%C0%AF']) {
    await expectRefused(t, api, 'POST', `/resourcetypes?Description=ok${bytes}`, { body: { Name: 'Rooms' } },
      { status: 400, errors: [['InvalidEncoding', 'Description']], message: "'Description' is not valid UTF-8.", name: `query ${bytes}` });
  }
  // The same text, sent right, is stored as sent.
  const ok = await api.call('POST', '/resourcetypes?Description=Caf%C3%A9+%E2%82%AC', { body: { Name: 'Café' } });
  t.equal(ok.statusCode, 200);
  t.match(ok.json(), { Name: 'Café', Description: 'Café €' });
  t.equal((await api.call('POST', '/resourcetypes', { csv: 'Name\r\nRåd\r\n' })).statusCode, 200, 'UTF-8 CSV is read');
});

t.test('a token without a company is 401 where the operation acts on the caller\'s company', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const noCompany = await mintToken(TEST_SECRET, { companyId: undefined as unknown as string, roles: [WRITE] });
  const notGuid = await mintToken(TEST_SECRET, { companyId: 'acme', roles: [WRITE] });
  for (const [name, jwt] of [['no company_id', noCompany], ['a company_id that is not a guid', notGuid]]) {
    for (const [method, url, body] of [
      ['GET', '/reports/booking/printout', undefined],
      ['POST', '/resourcetypes', { Name: 'Rooms' }],
      ['POST', '/resourcetypes', {}],
      ['GET', `/reports/booking/printout?CompanyId=${DEMO_COMPANY_A}`, undefined],
    ] as const) {
      await expectRefused(t, api, method, url, { as: jwt, body }, { status: 401, code: 'Unauthorized', name: `${name}: ${method} ${url}` });
    }
  }
  const superadmin = await mintToken(TEST_SECRET, { companyId: undefined as unknown as string, roles: [SUPERADMIN] });
  t.equal((await api.call('GET', `/reports/booking/printout?CompanyId=${DEMO_COMPANY_A}`, { as: superadmin })).statusCode, 200,
    'a superadmin naming a CompanyId is served');
  expectRefusal(t, await api.call('GET', '/reports/booking/printout', { as: superadmin }), { status: 401, code: 'Unauthorized', name: 'a superadmin naming none' });
  const lookup = `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=MASSAGE100&ServiceId=102&IncludeConnectedServices=false`;
  t.equal((await api.call('GET', lookup, { as: noCompany })).statusCode, 200, 'an operation that names its company serves any caller');
});

t.test('a roles claim that is one string is that one role', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const jwt = async (roles: unknown) => mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: roles as string[] });
  t.equal((await api.call('POST', '/resourcetypes', { as: await jwt(WRITE), body: { Name: 'Rooms' } })).statusCode, 200);
  expectRefusal(t, await api.call('POST', '/resourcetypes', { as: await jwt(`${READ} ${SUPERADMIN}`), body: { Name: 'Rooms' } }),
    { status: 403, code: 'Forbidden', name: 'a string of two names is no role this API knows' });
});

t.test('every refusal is in CSV when CSV was asked for, the router\'s too', async (t) => {
  const api = await buildTestApp(t, { data, company: DEMO_COMPANY_A });
  const overlong = `/tags/${'9'.repeat(300)}`;
  const cases: Array<[url: string, accept?: string]> = [
    [`${overlong}.csv`], ['/tags/abc.csv'], [`${overlong}?format=csv`], [overlong, 'text/csv'], [overlong, 'application/xml;q=1, text/csv;q=0.5'],
  ];
  for (const [url, accept] of cases) {
    const name = accept ? `${url.slice(0, 12)}… with Accept: ${accept}` : url;
    const res = await api.call('DELETE', url, accept ? { headers: { accept } } : {});
    t.equal(res.statusCode, 400, name);
    t.match(res.headers['content-type'], /^text\/csv/, `${name}: CSV`);
    t.match(res.body, /^ResponseStatus\r\n".*ErrorCode:/, `${name}: a ResponseStatus cell`);
  }
  // Accept allows neither format: the router's refusal stays in JSON, as the 406 would be.
  const neither = await api.call('DELETE', overlong, { headers: { accept: 'application/xml' } });
  t.equal(neither.statusCode, 400);
  t.match(neither.headers['content-type'], /^application\/json/);
});
