import net from 'node:net';
import { Writable } from 'node:stream';
import t from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import { buildLoggedApp, buildTestApp, expectRefusal, snapshot, TEST_SECRET, token, WRITE } from '../helper.js';
import { serverDatabase, startServer } from './server-process.js';
import { REDIS, needs } from '../needs.js';

// Abuse limits, each set by configuration (src/config.ts) and answered in the API's error
// shape. The helper's inject checks every answer against the contract, so a 413 or 429 is
// also proven to be a `default` ErrorResponse.

const data = buildDemoData();

t.test('BODY_LIMIT: a larger body is 413 PayloadTooLarge and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data, config: { BODY_LIMIT: 1024 }, company: DEMO_COMPANY_A });
  const unchanged = await snapshot(api.store);
  for (const [type, body] of [
    ['application/json', JSON.stringify({ Name: 'x'.repeat(2000) })],
    ['text/csv', `Name,Description\r\nBig,${'y'.repeat(2000)}\r\n`],
  ]) {
    const res = await api.call('POST', '/resourcetypes', { body, headers: { 'content-type': type } });
    expectRefusal(t, res, { status: 413, code: 'PayloadTooLarge', name: type });
  }
  await unchanged.assert(t);
  const fits = await api.call('POST', '/resourcetypes', { body: { Name: 'n'.repeat(200), Description: 'd'.repeat(600) } });
  t.equal(fits.statusCode, 200, 'a body under the limit is served');
});

t.test('RATE_LIMIT_MAX=3: the 4th request of a client is 429 TooManyRequests with Retry-After', async (t) => {
  const api = await buildTestApp(t, { data, config: { RATE_LIMIT_MAX: 3, RATE_LIMIT_WINDOW_MS: 60000 }, company: DEMO_COMPANY_A });
  for (let i = 1; i <= 3; i++) t.equal((await api.call('GET', '/categories', { as: null })).statusCode, 200, `request ${i}`);
  const refused = await api.call('GET', '/categories', { as: null });
  t.match(expectRefusal(t, refused, { status: 429, code: 'TooManyRequests', message: /retry in/ }), { Errors: [] });
  t.match(refused.headers['retry-after'], /^[1-9]\d*$/, 'Retry-After in whole seconds');
  t.ok(Number(refused.headers['retry-after']) <= 60);
  // Counted before authentication: a token does not buy more requests, nor does another operation.
  expectRefusal(t, await api.call('GET', '/billing/methods'), { status: 429, code: 'TooManyRequests' });
});

t.test('REBATE_LOOKUP_RATE_LIMIT_MAX=2: a caller\'s 3rd lookup is 429; other callers and operations are not affected', async (t) => {
  const api = await buildTestApp(t, { data, config: { RATE_LIMIT_MAX: 0, REBATE_LOOKUP_RATE_LIMIT_MAX: 2 } });
  const lookup = (sign = 'MASSAGE100') =>
    `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${sign}&ServiceId=102&IncludeConnectedServices=false`;
  const first = await token(DEMO_COMPANY_A);
  t.equal((await api.call('GET', lookup(), { as: first })).statusCode, 200);
  t.equal((await api.call('GET', lookup('NO-SUCH-CODE'), { as: first })).statusCode, 404, 'a miss counts too (that is what guessing produces)');
  const third = await api.call('GET', lookup(), { as: first });
  expectRefusal(t, third, { status: 429, code: 'TooManyRequests' });
  t.match(third.headers['retry-after'], /^[1-9]\d*$/);

  t.equal((await api.call('GET', lookup(), { company: DEMO_COMPANY_B })).statusCode, 200, 'another company\'s caller still gets through');
  const colleague = await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [WRITE], sub: 'colleague' });
  t.equal((await api.call('GET', lookup(), { as: colleague })).statusCode, 200, 'another user of the same company too');
  const other = await api.call('GET', '/billing/methods?CountryId=SE', { as: first });
  t.equal(other.statusCode, 200, 'the first caller\'s other operations are not limited');
});

t.test('security headers from helmet', async (t) => {
  const api = await buildTestApp(t, { data });
  for (const url of ['/categories', '/nowhere', '/openapi.json']) {
    const res = await api.call('GET', url, { as: null });
    t.equal(res.headers['x-content-type-options'], 'nosniff', url);
    t.equal(res.headers['x-frame-options'], 'SAMEORIGIN', url);
    t.equal(res.headers['referrer-policy'], 'no-referrer', url);
    t.notOk(res.headers['x-powered-by'], `${url}: no x-powered-by`);
  }
  const docs = await api.call('GET', '/docs', { as: null });
  t.equal(docs.statusCode, 200);
  t.match(docs.headers['content-security-policy'], /default-src 'self'/);
  t.match(docs.headers['content-security-policy'], /script-src 'self'/, 'Swagger UI runs only the server\'s own scripts');
});

t.test('CORS: none by default; CORS_ORIGINS allows exactly the configured origins', async (t) => {
  const preflight = (origin: string) => ({
    as: null,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  const closed = await buildTestApp(t, { data });
  const none = await closed.call('OPTIONS', '/resourcetypes', preflight('https://app.example'));
  t.notOk(none.headers['access-control-allow-origin'], 'no CORS headers by default');
  const simple = await closed.call('GET', '/categories', { as: null, headers: { origin: 'https://app.example' } });
  t.equal(simple.statusCode, 200);
  t.notOk(simple.headers['access-control-allow-origin']);

  const open = await buildTestApp(t, { data, config: { CORS_ORIGINS: 'https://app.example' } });
  const allowed = await open.call('OPTIONS', '/resourcetypes', preflight('https://app.example'));
  t.equal(allowed.statusCode, 204);
  t.equal(allowed.headers['access-control-allow-origin'], 'https://app.example');
  t.match(allowed.headers['access-control-allow-methods'], /POST/);
  t.match(allowed.headers['access-control-allow-headers'], /Authorization/);
  const foreign = await open.call('OPTIONS', '/resourcetypes', preflight('https://evil.example'));
  t.notOk(foreign.headers['access-control-allow-origin'], 'another origin is not allowed');
  const read = await open.call('GET', '/categories', { as: null, headers: { origin: 'https://app.example' } });
  t.equal(read.headers['access-control-allow-origin'], 'https://app.example');
  t.match(read.headers['access-control-expose-headers'], /Retry-After/);
});

/** Sends `head` on a raw socket, then optionally a byte every `trickleMs`; answers what came back and when the server closed. */
async function stalledRequest(port: number, head: string, trickleMs?: number) {
  const started = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => {});
  socket.write(head);
  const trickle = trickleMs ? setInterval(() => socket.writable && socket.write(' '), trickleMs) : undefined;
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const guard = new Promise<void>((resolve) => setTimeout(resolve, 10000).unref());
  await Promise.race([closed, guard]);
  clearInterval(trickle);
  socket.destroy();
  return { ms: Date.now() - started, received };
}

t.test('REQUEST_TIMEOUT_MS on a real socket: a stalled or trickled body is cut off within the timeout', async (t) => {
  const db = await serverDatabase();
  t.teardown(db.cleanup);
  const timeout = 1000;
  const server = await startServer({ DATABASE_URL: db.url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false', REQUEST_TIMEOUT_MS: String(timeout) });
  t.teardown(() => server.stop());
  const port = Number(new URL(server.url).port);
  const bearerToken = await token(DEMO_COMPANY_A);
  const head = (length: number) =>
    `POST /resourcetypes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${bearerToken}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  // Both in parallel: each must end between the timeout and the timeout plus Node's check interval.
  const [stalled, trickled] = await Promise.all([
    stalledRequest(port, `${head(1000)}{"Name":`),
    // A byte every 200 ms: never idle long enough for the connection (idle) timeout to help.
    stalledRequest(port, `${head(100000)}{"Name":`, 200),
  ]);
  for (const [name, result] of Object.entries({ stalled, trickled })) {
    t.ok(result.ms >= timeout - 50 && result.ms < timeout * 1.75, `${name}: closed after ${result.ms} ms`);
    t.match(result.received, /^HTTP\/1\.1 408 /, `${name}: answered 408`);
  }

  const huge = await stalledRequest(port, head(50 * 1024 * 1024));
  t.ok(huge.ms < timeout, `a declared 50 MB body is refused at once (${huge.ms} ms), not read`);
  t.match(huge.received, /^HTTP\/1\.1 413 [\s\S]*"ErrorCode":"PayloadTooLarge"/);

  const ok = await fetch(`${server.url}/categories`);
  t.equal(ok.status, 200, 'the server serves others meanwhile and after');
});

// ---- rate limits counted in Redis (REDIS_URL); src/plugins/protection.ts ----

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
const LOOKUP = `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=MASSAGE100&ServiceId=102&IncludeConnectedServices=false`;

/** Two apps, as two nodes behind one load balancer, with the same limits and REDIS_URL. */
async function twoNodes(t: Parameters<typeof buildTestApp>[0], config: Record<string, unknown>) {
  const limits = { RATE_LIMIT_MAX: 4, RATE_LIMIT_WINDOW_MS: 60000, REBATE_LOOKUP_RATE_LIMIT_MAX: 2, ...config };
  const nodes = [await buildTestApp(t, { data, config: limits, company: DEMO_COMPANY_A }), await buildTestApp(t, { data, config: limits, company: DEMO_COMPANY_A })];
  /** The statuses of `count` requests to `url` on node `i`, one after another. */
  return async (i: number, count: number, url = '/categories?Take=1') => {
    const statuses: number[] = [];
    for (let n = 0; n < count; n++) statuses.push((await nodes[i].call('GET', url, { as: url === LOOKUP ? undefined : null })).statusCode);
    return statuses;
  };
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP relay to `target` that the test can cut, as a Redis that goes away would be. */
async function cuttableRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  // This test's own counters: other tests may share the Redis.
  url.searchParams.set('keyPrefix', `booking-test-${process.pid}-${Date.now()}:`);
  return {
    url: url.toString(),
    cut: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
    /** Stops passing bytes, the connections left open: a Redis that hangs. */
    hang: () => {
      for (const socket of sockets) socket.pause();
    },
    /** Passes them again, what was held back first. */
    resume: () => {
      for (const socket of sockets) socket.resume();
    },
  };
}

t.test('a REDIS_URL that does not answer: every request is served, and each node still counts alone', async (t) => {
  const statuses = await twoNodes(t, { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
  t.same(await statuses(0, 5), [200, 200, 200, 200, 429], 'node 1 allows RATE_LIMIT_MAX, then 429');
  t.same(await statuses(1, 5), [200, 200, 200, 200, 429], 'node 2 counts its own');
  t.same(await statuses(0, 3, LOOKUP), [200, 200, 429], 'the strict lookup limit too');
});

t.test(
  TEST_REDIS_URL
    ? 'REDIS_URL: two nodes count together; when Redis goes away, each counts alone without failing a request'
    : 'no REDIS_URL: each node counts alone',
  async (t) => {
    if (!TEST_REDIS_URL) {
      const statuses = await twoNodes(t, {});
      t.same([...(await statuses(0, 3)), ...(await statuses(1, 3))], [200, 200, 200, 200, 200, 200], '6 requests over 2 nodes allowing 4 each');
      t.same([...(await statuses(0, 2, LOOKUP)), ...(await statuses(1, 2, LOOKUP))], [200, 200, 200, 200]);
      return;
    }
    const relay = await cuttableRelay(new URL(TEST_REDIS_URL));
    t.teardown(relay.cut);
    const statuses = await twoNodes(t, { REDIS_URL: relay.url });
    t.same([...(await statuses(0, 2)), ...(await statuses(1, 2))], [200, 200, 200, 200], 'RATE_LIMIT_MAX=4 between both');
    t.same([...(await statuses(0, 1)), ...(await statuses(1, 1))], [429, 429], 'the 5th and 6th are refused on either node');
    t.same([...(await statuses(1, 1, LOOKUP)), ...(await statuses(0, 2, LOOKUP))], [200, 200, 429], 'the lookup limit too');

    relay.cut();
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.same(await statuses(0, 5), [200, 200, 200, 200, 429], 'Redis away: node 1 counts alone, from zero');
    t.same(await statuses(1, 5), [200, 200, 200, 200, 429], 'and so does node 2');
  },
);

t.test(
  'REDIS_URL that hangs: no request waits on it more than about 1 s, the node counts alone meanwhile, and the outage and its end are logged once each',
  async (t) => {
    const redisUrl = needs(t, REDIS);
    if (!redisUrl) return;
    const relay = await cuttableRelay(new URL(redisUrl));
    t.teardown(relay.cut);
    let text = '';
    const capture = new Writable({ write: (chunk, _encoding, done) => {
    text += chunk.toString();
    done();
  } });
    const { app } = await buildLoggedApp(t, capture, { LOG_LEVEL: 'info', RATE_LIMIT_MAX: 4, RATE_LIMIT_WINDOW_MS: 60000, REDIS_URL: relay.url });
    const get = async () => {
      const started = Date.now();
      const { statusCode } = await app.inject({ method: 'GET', url: '/categories?Take=1' });
      return { statusCode, ms: Date.now() - started };
    };
    const logged = (level: number, message: RegExp) =>
      text.split('\n').filter((line) => line && JSON.parse(line).level === level && message.test(JSON.parse(line).msg)).length;

    t.equal((await get()).statusCode, 200, 'counted in Redis: 1');
    relay.hang();
    for (const n of [1, 2]) {
      const { statusCode, ms } = await get();
      t.equal(statusCode, 200, `Redis hangs: served, counted alone: ${n}`);
      t.ok(ms >= 900 && ms < 1900, `after waiting about 1 s for Redis (${ms} ms)`);
    }
    t.equal(logged(40, /does not answer/), 1, 'one warning for the outage');

    relay.resume();
    // The two counts held back reach Redis now: 3 there.
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.equal((await get()).statusCode, 200, 'Redis answers again: the 4th there');
    t.equal((await get()).statusCode, 429, 'and the 5th is refused (counting alone, it would be the 3rd)');
    t.equal(logged(30, /answers again/), 1, 'its end logged once');
    t.equal(logged(40, /does not answer/), 1, 'and no other warning');
  },
);
