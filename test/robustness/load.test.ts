import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig, MIN_CONNECTION_CAP } from '../../src/config.js';
import { listenForProbes, Readiness, STALE_MS } from '../../src/http/probes.js';
import { POOL_SIZE } from '../../src/store/engines/postgres.js';
import { openStore, type Store } from '../../src/store/db.js';
import { LAST_MIGRATION } from '../../src/store/migrations/index.js';
import { assertContract, bearer, buildLoggedApp, buildTestApp, testConfig, TEST_SECRET } from '../helper.js';
import { COMPANY_A } from '../fixtures.js';
import { freshDatabase } from '../test-store.js';
import { freePort, serverDatabase, startServer } from './server-process.js';

// Load, readiness and deploys (docs/operating.md): the probes in every phase of a node, on its
// port and on HEALTH_PORT; the shed answer; the connection cap; SIGTERM's drain.

const silent = pino({ level: 'silent' });
const portOf = (server: Server | { server: Server }) => (('server' in server ? server.server : server).address() as AddressInfo).port;

interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  json(): any;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { headers });
  const body = await res.text();
  return { statusCode: res.status, headers: Object.fromEntries(res.headers), body, json: () => JSON.parse(body) };
}

const unavailable = (t: Test, answer: Answer, message: RegExp, name: string) => {
  t.equal(answer.statusCode, 503, name);
  t.match(answer.headers['content-type'], /^application\/json/, `${name}: JSON`);
  t.match(answer.json(), { ResponseStatus: { ErrorCode: 'ServiceUnavailable', Message: message, Errors: [] } }, `${name}: a ResponseStatus`);
};

/** Holds every connection of the store (PostgreSQL's pool; SQLite's one) in an open transaction until `release` is called. */
function holdStore(store: Store): { release(): Promise<void> } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const held = Array.from({ length: POOL_SIZE }, () => store.db.transaction().execute(() => gate));
  return {
    async release() {
      open();
      await Promise.all(held);
    },
  };
}

t.test('/ready and /health answer for each phase of a node, on its port and on HEALTH_PORT', async (t) => {
  const database = await freshDatabase();
  const readiness = new Readiness();
  const probes = await listenForProbes(readiness, 0, '127.0.0.1', silent);
  const probe = `http://127.0.0.1:${probes.port}`;
  t.teardown(async () => {
    await probes.close();
    await database.drop();
  });

  for (const phase of ['starting', 'migrating'] as const) {
    readiness.enter(phase);
    unavailable(t, await get(`${probe}/ready`), phase === 'starting' ? /starting/ : /applying migrations/, `/ready while ${phase}`);
    unavailable(t, await get(`${probe}/health`), phase === 'starting' ? /starting/ : /applying migrations/, `/health while ${phase}: no store yet`);
  }
  const store = await openStore(database.url);
  readiness.store = store;
  const app = await buildApp(testConfig({ DATABASE_URL: database.url }), { store, readiness });
  t.teardown(async () => {
    await app.close();
    await store.close();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const api = `http://127.0.0.1:${portOf(app)}`;
  unavailable(t, await get(`${api}/ready`), /applying migrations/, 'the API port too, until the node serves');

  // HEALTH_PORT answers from the store's last answer to this thread's probe.
  await probes.refresh();
  readiness.enter('serving');
  for (const base of [probe, api]) {
    const ready = await get(`${base}/ready`);
    t.equal(ready.statusCode, 200, `${base}: ready`);
    t.strictSame(ready.json(), { Status: 'ready' });
    t.equal(ready.headers['cache-control'], 'no-store');
    t.strictSame((await get(`${base}/health`)).json(), { Status: 'ok' });
  }

  readiness.enter('draining');
  for (const base of [probe, api]) {
    unavailable(t, await get(`${base}/ready`), /shutting down/, `${base}: /ready while draining`);
    t.equal((await get(`${base}/health`)).statusCode, 200, `${base}: still alive while draining`);
  }
  const served = await fetch(`${api}/categories`);
  t.equal(served.status, 200, 'a draining node still serves');
  t.equal(served.headers.get('connection'), 'close', 'on connections it closes, so that clients move on');
  await served.text();

  readiness.enter('serving');
  await store.close();
  await probes.refresh();
  for (const base of [probe, api]) {
    unavailable(t, await get(`${base}/ready`), /store does not answer/, `${base}: /ready without its store`);
    unavailable(t, await get(`${base}/health`), /store does not answer/, `${base}: /health without its store`);
  }

  const other = await get(`${probe}/categories`);
  t.equal(other.statusCode, 404, 'HEALTH_PORT serves the probes only');
  t.equal(other.json().ResponseStatus.ErrorCode, 'NotFound');
  const post = await fetch(`${probe}/ready`, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(((await post.json()) as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode, 'MethodNotAllowed');
});

t.test('HEALTH_PORT answers while the node\'s own thread is busy: its listener runs in a thread of its own', async (t) => {
  const readiness = new Readiness('serving');
  readiness.storeAnswered(true);
  const probes = await listenForProbes(readiness, 0, '127.0.0.1', silent);
  t.teardown(() => probes.close());
  // spawnSync holds this thread, the node's, while the child probes.
  const child = spawnSync(process.execPath, ['-e', `fetch('http://127.0.0.1:${probes.port}/ready').then(async (r) => console.log(r.status, await r.text()))`], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  t.equal(child.stdout.trim(), '200 {"Status":"ready"}', 'answered while this thread was held');
});

t.test('HEALTH_PORT counts a store answer older than STALE_MS as none: the node\'s thread or its store has stopped', async (t) => {
  const readiness = new Readiness('serving');
  readiness.storeAnswered(true, Date.now() - STALE_MS - 1000);
  const probes = await listenForProbes(readiness, 0, '127.0.0.1', silent);
  t.teardown(() => probes.close());
  const base = `http://127.0.0.1:${probes.port}`;
  for (const path of ['/health', '/ready']) {
    unavailable(t, await get(base + path), /has not heard from its store for too long/, `${path}: stale`);
  }
  readiness.storeAnswered(true);
  t.equal((await get(`${base}/ready`)).statusCode, 200, 'a fresh answer: ready again');
});

t.test('the probes never wait behind requests for a store connection', async (t) => {
  const api = await buildTestApp(t);
  const held = holdStore(api.store);
  await sleep(200);
  const answered = await Promise.race([
    Promise.all([api.inject({ method: 'GET', url: '/ready' }), api.inject({ method: 'GET', url: '/health' })]),
    sleep(10_000).then(() => undefined),
  ]);
  await held.release();
  t.ok(answered, 'answered while every connection was taken');
  t.strictSame(answered?.map((res) => res.statusCode), [200, 200]);
});

t.test('beyond its heap limit a node sheds: 503 ServiceUnavailable with Retry-After, but never the probes nor /metrics', async (t) => {
  // A heap limit of one byte: every request is over it, as soon as the first sample is taken.
  const api = await buildTestApp(t, { config: { SHED_HEAP_USED_BYTES: 1, METRICS_TOKEN: 'metrics-token' } });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${portOf(api.app)}`;
  await sleep(500);
  for (const [url, type] of [['/categories', /^application\/json/], ['/categories.csv', /^text\/csv/]] as const) {
    const shed = await get(base + url);
    t.equal(shed.statusCode, 503, `${url}: shed`);
    t.equal(shed.headers['retry-after'], '1', `${url}: Retry-After`);
    t.not(shed.headers.connection, 'close', `${url}: the connection is kept (a reconnection would wait behind the storm)`);
    t.match(shed.headers['content-type'], type, `${url}: in the format asked for`);
    t.ok(shed.headers['x-request-id'], `${url}: with its request id`);
    assertContract('GET', url, shed);
    if (url.endsWith('.csv')) t.match(shed.body, /^ResponseStatus\r\n".*ErrorCode:ServiceUnavailable/);
    else t.equal(shed.json().ResponseStatus.ErrorCode, 'ServiceUnavailable');
  }
  t.equal((await get(`${base}/ready`)).statusCode, 200, '/ready is never shed');
  t.equal((await get(`${base}/health`)).statusCode, 200, '/health is never shed');
  const metrics = await get(`${base}/metrics`, { authorization: 'Bearer metrics-token' });
  t.equal(metrics.statusCode, 200, '/metrics is never shed');
  t.match(metrics.body, /http_requests_shed_total\{operation="CategoryQuery",reason="heap"\} 2/, 'the shed requests are counted');
});

/** Log lines, parsed, as a test's log stream receives them. */
function logLines(): { stream: PassThrough; lines(): Array<{ level: number; msg: string; shed?: number }> } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk) => (text += chunk.toString()));
  return { stream, lines: () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line)) };
}

t.test('a request that waits SHED_QUEUE_WAIT_MS behind MAX_IN_FLIGHT running ones is shed: 503 with Retry-After, counted, one warn line, no error', async (t) => {
  const log = logLines();
  const { app, store } = await buildLoggedApp(t, log.stream, { MAX_IN_FLIGHT: 1, SHED_QUEUE_WAIT_MS: 200, METRICS_TOKEN: 'metrics-token', LOG_LEVEL: 'info' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${portOf(app)}`;
  const auth = await bearer(COMPANY_A);
  const held = holdStore(store);
  await sleep(100);
  // The first runs, and waits for the store; the next three wait behind it, in this node.
  const running = get(`${base}/categories`, auth);
  for (let tries = 0; tries < 100 && app.backlog.running < 1; tries += 1) await sleep(2);
  const waiting = [get(`${base}/categories`, auth), get(`${base}/categories.csv`, auth), get(`${base}/categories`, auth)];
  for (let tries = 0; tries < 100 && app.backlog.waiting < 3; tries += 1) await sleep(2);
  t.equal(app.backlog.running, 1, 'one request runs');
  t.equal(app.backlog.waiting, 3, 'three wait');
  t.equal((await get(`${base}/ready`)).statusCode, 200, 'the probes neither wait nor are shed');
  const started = performance.now();
  const shed = await Promise.all(waiting);
  t.ok(performance.now() - started < 1000, 'the waiting ones are answered once they have waited 200 ms, while the first still runs');
  for (const answer of shed) {
    t.equal(answer.statusCode, 503);
    t.equal(answer.headers['retry-after'], '1');
    assertContract('GET', '/categories', answer);
  }
  t.match(shed[0].json(), { ResponseStatus: { ErrorCode: 'ServiceUnavailable', Message: /overloaded/ } });
  t.match(shed[1].body, /^ResponseStatus\r\n".*ErrorCode:ServiceUnavailable/, 'in the format asked for');
  await held.release();
  t.equal((await running).statusCode, 200, 'the running one is answered');
  t.equal((await get(`${base}/categories`, auth)).statusCode, 200, 'a lone request is served again at once');
  t.equal(app.backlog.running + app.backlog.waiting, 0, 'nothing runs or waits');

  await sleep(1200);
  const metrics = await get(`${base}/metrics`, { authorization: 'Bearer metrics-token' });
  t.match(metrics.body, /http_requests_shed_total\{operation="CategoryQuery",reason="queue_wait"\} 3/, 'the shed requests are counted');
  t.match(metrics.body, /http_requests_running 0\b/);
  const lines = log.lines();
  const warned = lines.filter((line) => line.level === 40);
  t.equal(warned.length, 1, 'one warn line');
  t.match(warned[0], { shed: 3, msg: /shed 3 requests in the last second/ });
  t.strictSame(lines.filter((line) => line.level >= 50), [], 'nothing at error level');
});

t.test('a request pipelined behind one in flight when the node closes is answered as a ResponseStatus', async (t) => {
  const api = await buildTestApp(t);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const held = holdStore(api.store);
  await sleep(100);
  const { authorization } = await bearer(COMPANY_A);
  const request = `GET /categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n\r\n`;
  const socket = connect(portOf(api.app), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  socket.write(request);
  await sleep(200);
  // As SIGTERM does once the drain is over; the second request comes on the busy connection.
  const closed = api.app.close();
  await sleep(100);
  socket.write(request);
  await sleep(100);
  await held.release();
  await Promise.race([ended, sleep(5000)]);
  socket.destroy();
  await closed;
  const answers = received.split(/(?=HTTP\/1\.1 )/);
  t.equal(answers.length, 2, 'both are answered');
  t.match(answers[0], /^HTTP\/1\.1 200 /, 'the one in flight is served');
  t.match(answers[1], /^HTTP\/1\.1 503 /, 'the pipelined one is refused');
  t.match(answers[1], /\r\nconnection: close\r\n/i, 'on a closing connection');
  t.match(answers[1], /\r\nretry-after: 1\r\n/i, 'with Retry-After');
  const body = answers[1].slice(answers[1].indexOf('\r\n\r\n') + 4);
  t.match(JSON.parse(body), { ResponseStatus: { ErrorCode: 'ServiceUnavailable', Message: /shutting down/, Errors: [] } }, 'a ResponseStatus, not Fastify\'s own body');
});

t.test('MAX_CONNECTIONS is 0 or at least 1,000', async (t) => {
  for (const cap of [1, MIN_CONNECTION_CAP - 1]) {
    t.throws(() => loadConfig({ MAX_CONNECTIONS: cap }, {}), { message: /MAX_CONNECTIONS must be 0 \(no cap\) or at least 1000/ }, `${cap} is refused`);
  }
  t.equal(loadConfig({ MAX_CONNECTIONS: MIN_CONNECTION_CAP }, {}).MAX_CONNECTIONS, MIN_CONNECTION_CAP);
  t.equal(loadConfig({}, {}).MAX_CONNECTIONS, 0, 'off by default');
});

t.test('MAX_CONNECTIONS closes connections beyond it as they arrive, and counts them', async (t) => {
  const api = await buildTestApp(t, { config: { MAX_CONNECTIONS: MIN_CONNECTION_CAP, METRICS_TOKEN: 'metrics-token' } });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const port = portOf(api.app);
  const open = Array.from({ length: MIN_CONNECTION_CAP }, () => connect({ port, host: '127.0.0.1' }));
  await Promise.all(open.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  const connections = promisify(api.app.server.getConnections.bind(api.app.server));
  while ((await connections()) < MIN_CONNECTION_CAP) await sleep(20);
  const second = connect({ port, host: '127.0.0.1' });
  second.on('error', () => {});
  second.write('GET /categories HTTP/1.1\r\nHost: x\r\n\r\n');
  let received = '';
  second.on('data', (chunk) => (received += chunk.toString()));
  await new Promise((resolve) => second.once('close', resolve));
  t.equal(received, '', 'the connection beyond the cap is closed without an answer');
  for (const socket of open) socket.destroy();
  while ((await connections()) > 0) await sleep(20);
  await sleep(100);
  const metrics = await get(`http://127.0.0.1:${port}/metrics`, { authorization: 'Bearer metrics-token' });
  t.match(metrics.body, /http_connections_dropped_total 1\b/);
});

t.test('SIGTERM: /ready answers 503 at once, the node serves SHUTDOWN_DELAY_MS more, then exits', async (t) => {
  const database = await serverDatabase();
  t.teardown(database.cleanup);
  const healthPort = await freePort();
  const server = await startServer({
    DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_SECRET, HEALTH_PORT: String(healthPort), SHUTDOWN_DELAY_MS: '1500', LOG_LEVEL: 'info',
    // A variable this version no longer reads: named at start, with what replaced it.
    SHED_EVENT_LOOP_DELAY_MS: '100',
  });
  t.match(server.logs(), /SHED_EVENT_LOOP_DELAY_MS is no longer read: a node sheds on its own backlog, by MAX_IN_FLIGHT and SHED_QUEUE_WAIT_MS/, 'the retired variable is named at start');
  t.teardown(() => server.kill());
  const probe = `http://127.0.0.1:${healthPort}`;
  // HEALTH_PORT's thread answers on its own: the node says it serves a moment after it listens.
  let ready = await get(`${probe}/ready`);
  for (let tries = 0; tries < 50 && ready.statusCode !== 200; tries += 1) ready = await sleep(20).then(() => get(`${probe}/ready`));
  t.equal(ready.statusCode, 200, 'ready on HEALTH_PORT');
  const store = await openStore(database.url, { migrate: false });
  t.teardown(() => store.close());
  const nodes = () => store.db.selectFrom('store_nodes').select('version').execute();
  t.strictSame(await nodes(), [{ version: LAST_MIGRATION }], 'the node records its version');
  t.equal((await get(`${server.url}/ready`)).statusCode, 200, 'and on the API port');

  const signalled = performance.now();
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  await sleep(200);
  unavailable(t, await get(`${probe}/ready`), /shutting down/, 'HEALTH_PORT says not ready at once');
  unavailable(t, await get(`${server.url}/ready`), /shutting down/, 'so does the API port');
  const served = await get(`${server.url}/categories`);
  t.equal(served.statusCode, 200, 'requests are still served during the delay');
  assertContract('GET', '/categories', served);
  // Waited for, not signalled again: a second signal closes at once.
  t.equal(await exited, 0, 'then it exits cleanly');
  t.ok(performance.now() - signalled >= 1500, 'not before SHUTDOWN_DELAY_MS');
  t.match(server.logs(), /"drainMs":1500,"msg":"closing"/);
  t.strictSame(await nodes(), [], 'and removes it as it stops');
});

t.test('while the node drains, the same signal again within a second counts once, and another signal ends it at once with 1', async (t) => {
  const database = await serverDatabase();
  t.teardown(database.cleanup);
  const server = await startServer({ DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_SECRET, SHUTDOWN_DELAY_MS: '10000', LOG_LEVEL: 'info' });
  t.teardown(() => server.kill());
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  server.child.kill('SIGTERM');
  await sleep(1200);
  t.equal(server.child.exitCode, null, 'the repeated SIGTERM did not end the drain');
  t.equal(server.logs().match(/"msg":"closing"/g)?.length, 1, 'one drain');
  const signalled = performance.now();
  server.child.kill('SIGINT');
  t.equal(await exited, 1, 'another signal: exit 1');
  t.ok(performance.now() - signalled < 5000, 'at once, not after SHUTDOWN_DELAY_MS');
  t.match(server.logs(), /a second signal while closing: exiting at once/);
});
