import net from 'node:net';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import t from 'tap';
import { prettyLogStream } from '../../src/log-output.js';
import { baseData } from '../fixtures.js';
import { assertContract, buildLoggedApp, buildTestApp, expectRefusal, rawExchange, WRITE } from '../helper.js';

// X-Request-Id (docs/decisions.md, "Request ids and proxies"): a caller's well-formed id is
// kept, anything else is replaced by a fresh one; every answer of every layer carries it,
// and every log line of the request.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test("a caller's id is kept; none, or a malformed or too long one, gets a fresh one", async (t) => {
  const api = await buildTestApp(t, { as: null });
  const idOf = async (id?: string) =>
    (await api.call('GET', '/categories', id === undefined ? {} : { headers: { 'x-request-id': id } })).headers['x-request-id'];

  for (const id of ['abc', 'req-42', 'A.b_c:d-9', '0f8fad5b-d9cb-469f-a165-70867728950e', 'x'.repeat(128)]) {
    t.equal(await idOf(id), id, `kept: ${id.slice(0, 40)}`);
  }
  const made = await idOf();
  t.match(made, UUID, 'none sent: a random UUID');
  t.not(await idOf(), made, 'a fresh one for each request');
  for (const [what, id] of [
    ['too long', 'x'.repeat(129)],
    ['a space', 'two words'],
    ['a slash', 'a/b'],
    ['a quote', 'a"b'],
    ['non-ASCII', 'åäö'],
    ['empty', ''],
  ]) {
    const answered = await idOf(id);
    t.match(answered, UUID, `${what}: replaced`);
    t.not(answered, id);
  }
});

t.test('every answer carries it: successes, CSV, and the refusals of every layer', async (t) => {
  const api = await buildTestApp(t, { data: baseData, as: null });
  // A route that fails unexpectedly, for the 500.
  api.app.get('/boom', async () => {
    throw new Error('boom');
  });
  const cases: Array<[string, string, string, number, Record<string, unknown>?]> = [
    ['a success', 'GET', '/categories', 200],
    ['a CSV answer', 'GET', '/categories.csv', 200],
    ['a 401 (no credentials)', 'GET', '/billing/methods', 401],
    ['a 400 (validation)', 'GET', '/categories?Take=abc', 400],
    ['a 400 in CSV', 'GET', '/categories.csv?Take=abc', 400],
    ['a 404 (no route)', 'GET', '/nowhere', 404],
    ['a 405', 'DELETE', '/categories', 405],
    ["a 400 of the router (a URL that is not UTF-8)", 'GET', '/tags/%E0%A4%A', 400],
    ["a 400 of the router (a path parameter too long)", 'DELETE', `/tags/${'1'.repeat(300)}`, 400],
    ['a 415', 'POST', '/resourcetypes', 415, { as: [WRITE], body: 'x', headers: { 'content-type': 'application/xml' } }],
    ['a 500', 'GET', '/boom', 500],
    ['/health', 'GET', '/health', 200],
    ['/openapi.yaml', 'GET', '/openapi.yaml', 200],
    ['/openapi.json', 'GET', '/openapi.json', 200],
    ['/docs', 'GET', '/docs/', 200],
    ['/mcp without credentials', 'POST', '/mcp', 401, { body: {} }],
    ['/mcp with GET', 'GET', '/mcp', 405],
  ];
  for (const [what, method, url, status, options] of cases) {
    const id = `case-${status}-${cases.findIndex((c) => c[0] === what)}`;
    const res = await api.call(method as 'GET', url, { ...options, headers: { ...(options?.headers as object), 'x-request-id': id } });
    t.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`);
    t.equal(res.headers['x-request-id'], id, `${what}: carries the id`);
  }
  const csv = await api.call('GET', '/categories.csv?Take=abc');
  t.match(csv.headers['content-type'], /^text\/csv/, 'the CSV refusal is CSV');
  t.match(csv.headers['x-request-id'], UUID);
});

t.test('a 429 carries it', async (t) => {
  const api = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 1 }, as: null });
  t.equal((await api.call('GET', '/categories')).statusCode, 200);
  const res = await api.call('GET', '/categories', { headers: { 'x-request-id': 'limited-1' } });
  expectRefusal(t, res, { status: 429, code: 'TooManyRequests' });
  t.equal(res.headers['x-request-id'], 'limited-1');
});

t.test("what Node's HTTP parser refuses carries a fresh one", async (t) => {
  const api = await buildTestApp(t);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (api.app.server.address() as net.AddressInfo).port;
  const [head] = (await rawExchange(port, 'GET /categories HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\nBad Header\r\n\r\n')).split('\r\n\r\n');
  t.match(head, /^HTTP\/1\.1 400 /);
  const id = /\r\nx-request-id: ([^\r]*)/i.exec(head)?.[1];
  t.match(id, UUID, 'nothing was parsed, so the id is a fresh one');
});

t.test('every log line of the request carries it, as reqId, in JSON and in readable lines', async (t) => {
  for (const pretty of [false, true]) {
    let text = '';
    const capture = new Writable({ write: (chunk, _encoding, done) => {
    text += chunk.toString();
    done();
  } });
    const { app } = await buildLoggedApp(t, pretty ? await prettyLogStream(capture) : capture, { LOG_LEVEL: 'info' });
    const kept = await app.inject({ method: 'GET', url: '/categories?Take=1', headers: { 'x-request-id': 'log-me-1' } });
    assertContract('GET', '/categories?Take=1', kept);
    const made = await app.inject({ method: 'GET', url: '/nowhere' });
    assertContract('GET', '/nowhere', made);
    const madeId = String(made.headers['x-request-id']);
    t.match(madeId, UUID);

    const lines = stripVTControlCharacters(text).split('\n').filter(Boolean);
    const of = (id: string) => lines.filter((line) => line.includes(`"reqId":"${id}"`));
    const format = pretty ? 'readable' : 'JSON';
    t.equal(of('log-me-1').length, 2, `${format}: the kept id on the request's lines (incoming, completed)`);
    t.equal(of(madeId).length, 2, `${format}: the made id on the request's lines`);
    t.ok(of('log-me-1').some((line) => line.includes('request completed')), `${format}: the line of the answer too`);
    if (!pretty) for (const line of lines.filter((l) => l.includes('request'))) t.ok(JSON.parse(line).reqId, 'each request line has a reqId');
  }
});
