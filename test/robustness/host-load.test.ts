import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, WRITE } from '../helper.js';
import { serverDatabase, startServer, type ServerProcess } from './server-process.js';

// A node sheds on its own backlog only (docs/operating.md, "Overload"): one client sending one
// request at a time is never refused, on a freshly started node nor on a host whose CPUs are
// taken by other processes. The busy-host test takes every core for 20 s, so this file runs
// alone (scripts/test-sqlite.mjs, scripts/test-postgres.mjs) and not in test:quick.

const headers = async () => ({
  authorization: `Bearer ${await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [WRITE] })}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
});

/** One client's mixed requests, in turn: MCP and HTTP, reads and writes. */
function requests(base: string, sent: Record<string, string>, round: number): Array<[string, () => Promise<Response>]> {
  const rpc = (id: number, method: string, params: object) => ({
    method: 'POST', headers: sent, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const template = (name: string) => ({ TypeId: 1, Name: name, Title: 'Host load', Body: 'Hi {Firstname}', Sender: 'booking@example.com', Services: [101] });
  return [
    ['MCP tools/list', () => fetch(`${base}/mcp`, rpc(1, 'tools/list', {}))],
    ['MCP CategoryQuery', () => fetch(`${base}/mcp`, rpc(2, 'tools/call', { name: 'CategoryQuery', arguments: { CompanyId: DEMO_COMPANY_A } }))],
    ['GET /categories', () => fetch(`${base}/categories?CompanyId=${DEMO_COMPANY_A}`, { headers: sent })],
    ['MCP CreateMessageTemplate', () => fetch(`${base}/mcp`, rpc(3, 'tools/call', { name: 'CreateMessageTemplate', arguments: template(`MCP ${round}`) }))],
    ['POST /messages/templates', () => fetch(`${base}/messages/templates`, { method: 'POST', headers: sent, body: JSON.stringify(template(`HTTP ${round}`)) })],
  ];
}

interface Tally {
  sent: number;
  statuses: Record<number, number>;
  refused: string[];
}

/** Sends rounds of requests one at a time, about `perSecond` a second, until `done` says so. */
async function client(base: string, perSecond: number, done: (round: number) => boolean): Promise<Tally> {
  const sent = await headers();
  const tally: Tally = { sent: 0, statuses: {}, refused: [] };
  for (let round = 0; !done(round); round += 1) {
    for (const [name, send] of requests(base, sent, round)) {
      const started = performance.now();
      const answer = await send();
      const body = await answer.text();
      tally.sent += 1;
      tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1;
      if (answer.status !== 200 || /"isError":true/.test(body)) tally.refused.push(`${name}: ${answer.status} ${body.slice(0, 200)}`);
      const rest = 1000 / perSecond - (performance.now() - started);
      if (rest > 0) await sleep(rest);
    }
  }
  return tally;
}

/** A freshly started node, and the lines it logs at error level or above (pino's 50 and 60), all of them. */
async function freshNode(t: Test): Promise<{ server: ServerProcess; errorLines: string[] }> {
  const database = await serverDatabase();
  t.teardown(database.cleanup);
  // Shedding as configured by default ('' is unset), where the other robustness tests turn it
  // off; rate limits off, since one client sends more than a minute's 600 requests.
  const server = await startServer({
    DATABASE_URL: database.url, AUTH_JWT_SECRET: TEST_SECRET, LOG_FORMAT: 'json', SHED_QUEUE_WAIT_MS: '', MAX_IN_FLIGHT: '', RATE_LIMIT_MAX: '0',
  });
  t.teardown(() => server.kill());
  const errorLines: string[] = [];
  let partial = '';
  server.child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    errorLines.push(...lines.filter((line) => /"level":(50|60)/.test(line)));
  });
  while ((await fetch(`${server.url}/ready`)).status !== 200) await sleep(10);
  return { server, errorLines };
}

t.test('the quiet host: a freshly started node answers one client\'s first requests, mixed MCP and HTTP, with no 503', async (t) => {
  const { server, errorLines } = await freshNode(t);
  const tally = await client(server.url, 1000, (round) => round === 10);
  t.equal(tally.sent, 50, 'every request of ten rounds is answered');
  t.equal(tally.statuses[503] ?? 0, 0, 'no answer is a 503');
  t.strictSame(tally.refused, [], 'every request succeeds');
  t.strictSame(errorLines, [], 'nothing is logged at error level');
});

t.test('the busy host: one busy process per core beside the node, one client at about 50 requests a second, no 503 and no error line', async (t) => {
  const { server, errorLines } = await freshNode(t);
  const seconds = 20;
  const busy = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end);`], { stdio: 'ignore' }));
  t.teardown(() => busy.forEach((child) => child.kill('SIGKILL')));
  const until = performance.now() + seconds * 1000;
  const tally = await client(server.url, 50, () => performance.now() >= until);
  await Promise.all(busy.map((child) => new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)))));
  t.ok(tally.sent >= seconds * 10, `${tally.sent} requests sent while the cores were busy`);
  t.equal(tally.statuses[503] ?? 0, 0, 'no answer is a 503');
  t.strictSame(tally.refused, [], 'every request succeeds');
  t.strictSame(errorLines, [], 'nothing is logged at error level');
});
