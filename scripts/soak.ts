// `npm run soak -- --seconds N [--connections C] [--invalid-share 0.1]`
//
// Drives all thirteen operations against the server, started as its own process on a
// temporary database with the demo data (127.0.0.1, PORT 0, rate limits off), for N seconds
// with C requests in flight, and samples the server's RSS every second. Prints requests,
// requests/s, counts per status and per operation, latencies and RSS first/peak/last.
// Exits non-zero on any 5xx, any failed connection, or when the mean RSS of the last third
// of the run exceeds that of the middle third by more than 20% (checked from 9 samples on).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mintToken } from '../src/auth/token.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../src/store/demo-data.js';
import { prepareDatabase, startServer, tempDatabase } from '../test/robustness/server-process.js';
import { soakOperations, POOL_SIZE, type SoakRequest } from './soak-operations.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '16' },
    'invalid-share': { type: 'string', default: '0.1' },
  },
  strict: true,
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const invalidShare = Number(values['invalid-share']);
if (!(seconds > 0) || !Number.isInteger(connections) || connections < 1 || !(invalidShare >= 0 && invalidShare <= 1)) {
  console.error('usage: npm run soak -- --seconds <N> [--connections <C>] [--invalid-share <0..1>]');
  process.exit(2);
}

const secret = randomBytes(32).toString('base64url');
const db = tempDatabase('booking-soak-');
// The demo data plus pools of rows that the delete operations consume (the API cannot
// create resources or custom fields); once a pool is empty its deletes answer 404.
const demo = buildDemoData();
const data = {
  ...demo,
  Resources: [
    ...demo.Resources,
    ...Array.from({ length: POOL_SIZE }, (_, i) => ({ CompanyId: DEMO_COMPANY_A, Id: 10000 + i, Name: `Soak resource ${i}`, Active: true })),
  ],
  CustomFields: [
    ...demo.CustomFields,
    ...Array.from({ length: POOL_SIZE }, (_, i) => ({ CompanyId: DEMO_COMPANY_A, Id: 10000 + i, FieldId: 100 + i, Name: `Soak field ${i}`, DataType: 'TextBox', Values: [{ Value: 'x' }], ServiceIds: [101] })),
  ],
};
await prepareDatabase(db.url, data);
const server = await startServer({
  DATABASE_URL: db.url, AUTH_JWT_SECRET: secret, DEMO_DATA: 'false', LOG_LEVEL: 'info',
  RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0',
});
const cleanup = async () => {
  await server.stop();
  db.cleanup();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

const bearer = async (companyId: string, roles: string[]) =>
  `Bearer ${await mintToken(secret, { companyId, roles, expiresIn: `${Math.ceil(seconds) + 600}s` })}`;
const operations = soakOperations({
  write: await bearer(DEMO_COMPANY_A, ['bookingsupplier-administrator-write']),
  read: await bearer(DEMO_COMPANY_A, ['bookingsupplier-administrator-read']),
  otherCompany: await bearer(DEMO_COMPANY_B, ['bookingsupplier-administrator-write']),
});

// ---- the load ----
const statuses = new Map<string, number>();
interface OperationStats {
  requests: number;
  statuses: Map<string, number>;
  ms: number[];
}
const perOperation = new Map<string, OperationStats>();
const latencies: number[] = [];
const failures: string[] = [];
let requests = 0;
const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

async function send(name: string, request: SoakRequest) {
  const started = performance.now();
  let status: string;
  try {
    const res = await fetch(`${server.url}${request.path}`, {
      method: request.method,
      headers: { ...request.headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    await res.arrayBuffer();
    status = String(res.status);
    if (res.status >= 500 && failures.length < 20) failures.push(`${name} ${request.method} ${request.path} → ${res.status}`);
  } catch (err) {
    status = 'error';
    if (failures.length < 20) failures.push(`${name} ${request.method} ${request.path}: ${(err as Error).message}`);
  }
  const ms = performance.now() - started;
  requests++;
  latencies.push(ms);
  count(statuses, status);
  const op: OperationStats = perOperation.get(name) ?? { requests: 0, statuses: new Map(), ms: [] };
  op.requests++;
  count(op.statuses, status);
  op.ms.push(ms);
  perOperation.set(name, op);
}

/** CPU seconds the server has used (user + system), from /proc; undefined elsewhere. */
const cpuSeconds = (): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100/s on Linux)
  } catch {
    return undefined;
  }
};
const cpuBefore = cpuSeconds();
const rss: number[] = [];
const sampleRss = () => {
  const kb = server.rssKb();
  if (kb !== undefined) rss.push(kb);
};
sampleRss();
const sampler = setInterval(sampleRss, 1000);
const started = performance.now();
const deadline = started + seconds * 1000;
let sequence = 0;
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      const n = sequence++;
      const op = operations[n % operations.length];
      const invalid = Math.random() < invalidShare;
      await send(op.name, invalid ? op.invalid(n) : op.valid(n));
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const cpuAfter = cpuSeconds();
clearInterval(sampler);
sampleRss();
await cleanup();

// ---- the report ----
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const timing = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: +percentile(sorted, 50).toFixed(1), p99: +percentile(sorted, 99).toFixed(1), max: +(sorted.at(-1) ?? 0).toFixed(1) };
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const third = Math.floor(rss.length / 3);
const middle = rss.slice(third, 2 * third);
const last = rss.slice(2 * third);
const growth = third >= 3 ? mean(last) / mean(middle) - 1 : undefined;
const mb = (kb: number | undefined) => (kb === undefined ? undefined : +(kb / 1024).toFixed(1));
const fiveHundreds = [...statuses].filter(([s]) => s.startsWith('5')).reduce((n, [, c]) => n + c, 0);

const summary = {
  seconds: +elapsed.toFixed(1),
  connections,
  requests,
  rps: Math.round(requests / elapsed),
  statuses: Object.fromEntries([...statuses].sort()),
  latencyMs: timing(latencies),
  operations: Object.fromEntries(
    [...perOperation].sort(([a], [b]) => a.localeCompare(b)).map(([name, op]) => [
      name,
      { requests: op.requests, statuses: Object.fromEntries([...op.statuses].sort()), ...timing(op.ms) },
    ]),
  ),
  rssMb: { first: mb(rss[0]), peak: mb(Math.max(...rss)), last: mb(rss.at(-1)), samples: rss.length },
  serverCpuPercent: cpuBefore === undefined || cpuAfter === undefined ? undefined : Math.round(((cpuAfter - cpuBefore) / elapsed) * 100),
  rssGrowthLastOverMiddle: growth === undefined ? 'not checked (fewer than 9 samples)' : `${(growth * 100).toFixed(1)}%`,
  fiveHundreds,
  connectionErrors: statuses.get('error') ?? 0,
};

console.log(`soak: ${summary.requests} requests in ${summary.seconds} s = ${summary.rps} req/s over ${connections} connections`);
console.log(`statuses: ${JSON.stringify(summary.statuses)}   latency ms: ${JSON.stringify(summary.latencyMs)}   server CPU: ${summary.serverCpuPercent ?? '?'}%`);
for (const [name, op] of Object.entries(summary.operations)) {
  console.log(`  ${name.padEnd(28)} ${String(op.requests).padStart(7)}  ${JSON.stringify(op.statuses)}  p50 ${op.p50} p99 ${op.p99}`);
}
console.log(`RSS MB: first ${summary.rssMb.first}, peak ${summary.rssMb.peak}, last ${summary.rssMb.last} (${rss.length} samples); last third over middle third: ${summary.rssGrowthLastOverMiddle}`);
for (const failure of failures) console.log(`failure: ${failure}`);
console.log(`SOAK_RESULT ${JSON.stringify(summary)}`);

const problems = [
  ...(fiveHundreds > 0 ? [`${fiveHundreds} answers were 5xx`] : []),
  ...(summary.connectionErrors > 0 ? [`${summary.connectionErrors} requests failed to connect or were cut off`] : []),
  ...(growth !== undefined && growth > 0.2 ? [`RSS grew ${(growth * 100).toFixed(1)}% from the middle to the last third`] : []),
  ...(perOperation.size < operations.length ? [`only ${perOperation.size} of ${operations.length} operations were called`] : []),
];
for (const problem of problems) console.error(`soak FAILED: ${problem}`);
process.exit(problems.length > 0 ? 1 : 0);
