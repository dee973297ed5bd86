// `npm run bench:overload`: one node on SQLite under a connection storm (docs/operating.md,
// "Overload"). GetRebateCodeBySign from 10 connections gives the node's throughput; then from
// --connections (2,000) clients for --duration (15 s), each reconnecting when the server
// closes, while /health and /ready are polled on HEALTH_PORT every 0.5 s, each on a new
// connection, from a thread of their own. Each setting (--settings) is measured in turn, rate
// limits off: `before` turns shedding off and keeps Node's backlog of 511; `after` runs with
// the defaults. Writes bench/overload.md.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { mintToken } from '../../src/auth/token.js';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { serverCommand, startApi } from './servers.js';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '15' },
    settings: { type: 'string', default: 'before,after' },
    out: { type: 'string', default: 'bench/overload.md' },
  },
});
const CONNECTIONS = Number(values.connections);
const DURATION_S = Number(values.duration);
const root = join(import.meta.dirname, '../..');
const SECRET = 'overload-bench-secret-0123456789';
const SETTINGS: Record<string, Record<string, string>> = {
  before: { SHED_QUEUE_WAIT_MS: '0', MAX_IN_FLIGHT: '0', SHED_HEAP_USED_BYTES: '0', LISTEN_BACKLOG: '511', MAX_CONNECTIONS: '0' },
  // The defaults: '' is unset (startApi turns shedding off for the other measurements).
  after: { SHED_QUEUE_WAIT_MS: '' },
};

/** A setting by name, or variables of its own: `LISTEN_BACKLOG=511+SHED_QUEUE_WAIT_MS=250`. */
function settingEnv(setting: string): Record<string, string> {
  if (SETTINGS[setting]) return SETTINGS[setting];
  return Object.fromEntries(setting.split('+').map((pair) => pair.split('=') as [string, string]));
}

/** The kernel's count of connections its listen queues dropped, and of SYNs it dropped (TcpExt). */
function listenOverflows(): { overflows: number; drops: number } {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
  const [names, numbers] = lines.map((line) => line.split(/\s+/).slice(1));
  const of = (name: string) => Number(numbers[names.indexOf(name)] ?? NaN);
  return { overflows: of('ListenOverflows'), drops: of('ListenDrops') };
}

interface Storm {
  ok: number;
  shed: number;
  shedWithoutRetryAfter: number;
  other: Record<string, number>;
  closedByServer: number;
  connectErrors: number;
  /** each connection's time from connect to its first answer, ms */
  firstAnswerMs: number[];
  /** the longest wait of a request on a connection that had its first answer, ms */
  laterMaxMs: number;
  laterOver2s: number;
  laterCount: number;
  seconds: number;
}

/**
 * `connections` keep-alive HTTP/1.1 connections, each sending `request` again as soon as it
 * has its answer (a closed loop, as autocannon drives), reconnecting when the server closes.
 * A small reader of its own, so that the first answer of each connection and the wait of every
 * later request can be told apart.
 */
async function storm(port: number, request: string, connections: number, seconds: number): Promise<Storm> {
  const result: Storm = { ok: 0, shed: 0, shedWithoutRetryAfter: 0, other: {}, closedByServer: 0, connectErrors: 0, firstAnswerMs: [], laterMaxMs: 0, laterOver2s: 0, laterCount: 0, seconds };
  const end = performance.now() + seconds * 1000;
  const payload = Buffer.from(request);
  let open = 0;
  // One client: its first connection, then a new one whenever the server closes it. Once the
  // client has had an answer, every request's wait counts, a reconnection's included.
  const startConnection = (hadAnswer: boolean) => {
    if (performance.now() >= end) return;
    open += 1;
    const connectedAt = performance.now();
    let sentAt = connectedAt;
    let answered = 0;
    let buffer: Buffer = Buffer.alloc(0);
    const socket: Socket = connect({ port, host: '127.0.0.1' });
    socket.setNoDelay(true);
    socket.write(payload);
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = buffer.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) return;
        buffer = buffer.subarray(headEnd + 4 + length);
        const now = performance.now();
        const status = head.slice(9, 12);
        if (status === '200') result.ok += 1;
        else if (status === '503') {
          result.shed += 1;
          if (!/\r\nretry-after: *\d+/i.test(head)) result.shedWithoutRetryAfter += 1;
        } else result.other[status] = (result.other[status] ?? 0) + 1;
        if (answered === 0 && !hadAnswer) result.firstAnswerMs.push(now - connectedAt);
        else {
          const wait = now - sentAt;
          result.laterCount += 1;
          result.laterMaxMs = Math.max(result.laterMaxMs, wait);
          if (wait > 2000) result.laterOver2s += 1;
        }
        answered += 1;
        if (now >= end || /\r\nconnection: *close/i.test(head)) {
          socket.end();
          return;
        }
        sentAt = now;
        socket.write(payload);
      }
    });
    socket.on('error', () => {
      if (answered === 0) result.connectErrors += 1;
    });
    socket.on('close', () => {
      open -= 1;
      if (performance.now() < end) {
        result.closedByServer += 1;
        startConnection(hadAnswer || answered > 0);
      }
    });
  };
  for (let i = 0; i < connections; i += 1) startConnection(false);
  await sleep(seconds * 1000);
  const deadline = performance.now() + 15_000;
  while (open > 0 && performance.now() < deadline) await sleep(50);
  return result;
}

/** Polls both probes every 0.5 s, each on a new connection, in a thread of its own. */
function pollProbes(port: number, seconds: number): Promise<Record<string, { ms: number[]; failed: number }>> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const result = { '/health': { ms: [], failed: 0 }, '/ready': { ms: [], failed: 0 } };
    const probe = (path) => new Promise((resolve) => {
      const started = performance.now();
      let settled = false;
      const settle = (ok) => {
        if (settled) return;
        settled = true;
        if (ok) result[path].ms.push(performance.now() - started); else result[path].failed += 1;
        resolve();
      };
      const req = http.get({ host: '127.0.0.1', port: workerData.port, path, agent: false, timeout: 10000 }, (res) => {
        res.resume();
        res.on('end', () => settle(res.statusCode === 200));
        res.on('error', () => settle(false));
        res.on('close', () => settle(false));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => settle(false));
    });
    const pending = [];
    const timer = setInterval(() => { pending.push(probe('/health'), probe('/ready')); }, 500);
    setTimeout(async () => { clearInterval(timer); await Promise.all(pending); parentPort.postMessage(result); }, workerData.seconds * 1000);
  `;
  const worker = new Worker(code, { eval: true, workerData: { port, seconds } });
  return new Promise((resolve, reject) => {
    worker.once('message', (message) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (value: number) => (Number.isNaN(value) ? '–' : `${Math.round(value)} ms`);

async function measure(setting: string) {
  const dir = mkdtempSync(join(tmpdir(), 'overload-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const healthPort = port + 1;
  // Ports of its own: the child's first listener is HEALTH_PORT's, which startApi would take for the API's.
  const api = await startApi(root, serverCommand(root, 'dist'), `file:${join(dir, 'store.sqlite')}`, SECRET, {
    env: { DEMO_DATA: 'true', PORT: String(port), HEALTH_PORT: String(healthPort), ...settingEnv(setting) },
  });
  try {
    while ((await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined))?.status !== 200) await sleep(50);
    const token = await mintToken(SECRET, { companyId: DEMO_COMPANY_A, roles: ['bookingsupplier-administrator-read'] });
    const path = `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=value1000&ServiceId=101&IncludeConnectedServices=true`;
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n\r\n`;
    await storm(port, request, 10, 3);
    const ten = await storm(port, request, 10, 10);
    await sleep(1000);
    const kernelBefore = listenOverflows();
    const [many, probes] = await Promise.all([storm(port, request, CONNECTIONS, DURATION_S), pollProbes(healthPort, DURATION_S)]);
    const kernelAfter = listenOverflows();
    return { setting, ten, many, probes, overflows: kernelAfter.overflows - kernelBefore.overflows, drops: kernelAfter.drops - kernelBefore.drops };
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: string[] = [];
// A measurement whose promises can no longer settle would otherwise end the process quietly.
process.on('beforeExit', () => {
  if (process.exitCode === undefined) {
    console.error('the bench stopped before it finished: a measurement waited on nothing left to run');
    process.exitCode = 1;
  }
});
for (const setting of values.settings.split(',')) {
  const { ten, many, probes, overflows, drops } = await measure(setting);
  const okPerSecond = many.ok / many.seconds;
  const tenPerSecond = ten.ok / ten.seconds;
  const row = [
    setting,
    `${Math.round(tenPerSecond)}`,
    `${Math.round(okPerSecond)} (${Math.round((100 * okPerSecond) / tenPerSecond)}%)`,
    `${many.shed}${many.shedWithoutRetryAfter ? ` (${many.shedWithoutRetryAfter} without Retry-After)` : ''}`,
    Object.entries(many.other).map(([status, count]) => `${status}: ${count}`).join(', ') || '0',
    `${many.closedByServer} / ${many.connectErrors}`,
    `${ms(percentile(many.firstAnswerMs, 50))} / ${ms(percentile(many.firstAnswerMs, 99))} / ${ms(Math.max(...many.firstAnswerMs))}`,
    `${ms(many.laterMaxMs)} (${many.laterOver2s} over 2 s)`,
    ...(['/health', '/ready'] as const).map((probe) => `${ms(percentile(probes[probe].ms, 50))} / ${ms(Math.max(...probes[probe].ms))}${probes[probe].failed ? `, ${probes[probe].failed} failed` : ''}`),
    `${overflows} / ${drops}`,
  ];
  rows.push(`| ${row.join(' | ')} |`);
  console.log(rows.at(-1));
}

const report = [
  `# Overload: ${CONNECTIONS} connections for ${DURATION_S} s on GetRebateCodeBySign, one node on SQLite`,
  '',
  `Written by \`npm run bench:overload\` on ${new Date().toISOString().slice(0, 10)}; \`before\` is the node as it was (no shedding, Node's backlog of 511), \`after\` the defaults (docs/operating.md, "Overload").`,
  'Rates are 200s per second; times are medians / 99th percentiles / worst. "First answer" is each client\'s wait from its first connect to its first answer. ' +
    '"Later wait" is the longest a request waited, from its send to its answer, once its client had had an answer: when the server closed the connection, the next request\'s wait includes the new connect. ' +
    'Targets (docs/operating.md, "Overload"): 200s at 0.8 of the 10-connection rate or more, no later wait over 2 s, every probe within 1 s.',
  '',
  '| setting | 10 connections, 200/s | storm, 200/s (of 10 conn.) | shed 503 | other statuses | closed by server / connect errors | first answer | later wait | /health on HEALTH_PORT | /ready on HEALTH_PORT | ListenOverflows / ListenDrops |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
writeFileSync(resolve(root, values.out), report);
console.log(`wrote ${values.out}`);
process.exitCode = 0;
