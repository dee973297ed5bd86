import t from 'tap';
import { MAX_BIND_PARAMETERS, rowsPerChunk } from '../../scripts/bench/bulk.js';
import type { LoadResult } from '../../scripts/bench/load.js';
import { mcpTargets, type McpOperationResult } from '../../scripts/bench/mcp.js';
import type { Sample } from '../../scripts/bench/measure.js';
import type { Operation } from '../../scripts/bench/operations.js';
import { commandLine } from '../../scripts/bench/options.js';
import { benchDatabaseName, choosePostgres, databaseUrl, redacted } from '../../scripts/bench/postgres.js';
import { compareMarkdown } from '../../scripts/bench/report.js';
import { compareTargets, type OpSummary } from '../../scripts/bench/summary.js';
import { markdownTable, perEngine } from '../../scripts/bench/tables.js';

// The bench's pure helpers: what decides where PostgreSQL comes from, what its database is
// called, how rows are chunked, how results.md lays the engines side by side, and the
// verdicts of the --compare and MCP targets.

const SERVER = 'postgres://bench:s3cret@127.0.0.1:55432/postgres?application_name=bench';

t.test('a chunk of rows stays within the bind parameters both engines allow', async (t) => {
  t.equal(MAX_BIND_PARAMETERS, 32_766, "SQLite's limit, the lower one (PostgreSQL allows 65,535)");
  for (const columns of [1, 2, 3, 9, 24, 100]) {
    const rows = rowsPerChunk(columns);
    t.ok(rows * columns <= MAX_BIND_PARAMETERS, `${columns} columns: ${rows} rows fit`);
    t.ok((rows + 1) * columns > MAX_BIND_PARAMETERS, `${columns} columns: ${rows} rows is as many as fit`);
  }
  t.equal(rowsPerChunk(3, 65_535), 21_845);
  t.throws(() => rowsPerChunk(0));
  t.throws(() => rowsPerChunk(MAX_BIND_PARAMETERS + 1));
});

t.test('PostgreSQL comes from --postgres, else BENCH_POSTGRES_URL, else TEST_POSTGRES_URL', async (t) => {
  const env = { BENCH_POSTGRES_URL: 'postgres://127.0.0.1:1/bench', TEST_POSTGRES_URL: 'postgres://127.0.0.1:2/test' };
  t.same(choosePostgres('postgresql://127.0.0.1:3/x', env), { server: 'postgresql://127.0.0.1:3/x', from: '--postgres' });
  t.same(choosePostgres(undefined, env), { server: env.BENCH_POSTGRES_URL, from: 'BENCH_POSTGRES_URL' });
  t.same(choosePostgres(undefined, { TEST_POSTGRES_URL: env.TEST_POSTGRES_URL, BENCH_POSTGRES_URL: '' }), { server: env.TEST_POSTGRES_URL, from: 'TEST_POSTGRES_URL' });
});

t.test('without a server, or with --postgres off, PostgreSQL is skipped with the reason', async (t) => {
  const none = choosePostgres(undefined, {});
  t.ok('skipped' in none && /--postgres, BENCH_POSTGRES_URL or TEST_POSTGRES_URL/.test(none.skipped), 'the reason names every way to give one');
  const off = choosePostgres('off', { BENCH_POSTGRES_URL: SERVER });
  t.ok('skipped' in off && /--postgres off/.test(off.skipped), '--postgres off wins over the variables');
});

t.test('a server URL that is not PostgreSQL is refused, without showing its password', async (t) => {
  t.throws(() => choosePostgres('file:./x.sqlite', {}), /--postgres must be a postgres:\/\/ URL or off/);
  t.throws(() => choosePostgres(undefined, { BENCH_POSTGRES_URL: 'mysql://u:pw@h/db' }), { message: /BENCH_POSTGRES_URL must be.*mysql:\/\/u:\*\*\*@h\/db/ });
});

t.test('each bench database has a name of its own that needs no quoting', async (t) => {
  const name = benchDatabaseName(0.01, 'a1b2c3d4');
  t.equal(name, 'booking_bench_s0_01_a1b2c3d4');
  t.equal(benchDatabaseName(0.00001, 'ffff'), 'booking_bench_s0_00001_ffff');
  t.ok(name.length <= 63, "within PostgreSQL's identifier length");
  t.throws(() => benchDatabaseName(1, 'x; drop'), 'the random part is checked');
});

t.test('the database URL keeps the server, credentials and parameters; logs see no password', async (t) => {
  t.equal(databaseUrl(SERVER, 'booking_bench_s1_abcd'), 'postgres://bench:s3cret@127.0.0.1:55432/booking_bench_s1_abcd?application_name=bench');
  t.equal(redacted(SERVER), 'postgres://bench:***@127.0.0.1:55432/postgres?application_name=bench');
  t.equal(redacted('postgres://postgres@127.0.0.1:55432/postgres'), 'postgres://postgres@127.0.0.1:55432/postgres');
});

t.test('the recorded command says which variable named PostgreSQL, and hides passwords', async (t) => {
  t.equal(commandLine(['--duration', '2'], { server: SERVER, from: 'BENCH_POSTGRES_URL' }),
    'BENCH_POSTGRES_URL=postgres://bench:***@127.0.0.1:55432/postgres?application_name=bench npm run bench -- --duration 2');
  t.equal(commandLine(['--postgres', SERVER, '--only', 'A B'], { server: SERVER, from: '--postgres' }),
    "npm run bench -- --postgres 'postgres://bench:***@127.0.0.1:55432/postgres?application_name=bench' --only 'A B'");
  t.equal(commandLine([], { skipped: 'none' }), 'npm run bench');
  t.equal(commandLine(['--postgres', 'off'], { skipped: 'off' }), 'npm run bench -- --postgres off');
});

t.test('tables put one column per engine measured, side by side', async (t) => {
  const rows = [{ name: 'A|B', rps: { sqlite: 10, postgres: 5 } }];
  type Row = (typeof rows)[number];
  const columns = (engines: Array<'sqlite' | 'postgres'>) => [
    { title: 'Operation', cell: (r: Row) => r.name },
    ...perEngine<Row>(engines, 'req/s', (r, e) => String(r.rps[e])),
  ];
  t.same(markdownTable(columns(['sqlite', 'postgres']), rows), [
    '| Operation | SQLite req/s | PostgreSQL req/s |',
    '|---|---:|---:|',
    '| A\\|B | 10 | 5 |',
  ], 'numbers right-aligned; a | in a cell is escaped');
  t.same(markdownTable(columns(['sqlite']), rows), ['| Operation | SQLite req/s |', '|---|---:|', '| A\\|B | 10 |'], 'no PostgreSQL columns when it was not measured');
});

const load = (cpuUsPerRequest: number, unexpected = 0): LoadResult => ({ rps: 1000, p50: 1, p99: 2, requests: 1000, unexpected, statuses: { 200: 1000 }, cpuUsPerRequest });

t.test('--compare: CPU per request ≤ 1.05× the compared build, per engine and operation, the median of the per-round ratios', async (t) => {
  const ops = [{ id: 'R', label: 'A read', kind: 'read', status: 200 }, { id: 'W', label: 'A write', kind: 'write', status: 200 }] as Operation[];
  // Per round: this build's CPU on SQLite and PostgreSQL, and the compared build's on each.
  const rounds = (now: number[][], then: number[][], unexpected = 0) => now.map((_, i): Sample => ({
    engines: { sqlite: { full: load(now[i][0]), small: load(1) }, postgres: { full: load(now[i][1]), small: load(1) } },
    fastify: load(1), node: load(1), sql: { sqlite: load(1), postgres: load(1) },
    compare: { sqlite: load(then[i][0], unexpected), postgres: load(then[i][1]) },
  }));
  // SQLite's ratios 1, 2, 3, 1.04, 0.4: their median is 1.04, though the medians' ratio is 200 / 100.
  const read = rounds([[100, 106], [200, 106], [300, 106], [104, 106], [400, 106]], [[100, 100], [100, 100], [100, 100], [100, 100], [1000, 100]]);
  const write = rounds([[100, 100]], [[100, 100]], 3);
  const checks = compareTargets(ops, new Map([['R', read], ['W', write]]), ['sqlite', 'postgres']);
  t.same(checks.map((c) => [c.engine, c.subject, c.value, c.met]), [
    ['sqlite', 'A read', '1.04× (200 µs against 100 µs)', true],
    ['sqlite', 'A write', '1.00× (100 µs against 100 µs) (unexpected answers: 3)', false],
    ['postgres', 'A read', '1.06× (106 µs against 100 µs)', false],
    ['postgres', 'A write', '1.00× (100 µs against 100 µs)', true],
  ]);
  t.ok(checks.every((c) => c.target === "CPU per request ≤ 1.05× the compared build's" && c.profile === ops.find((op) => op.label === c.subject)!.id), 'one target, a missed one profiles its operation');

  const section = compareMarkdown(
    { revision: 'e1ec3bf', commit: 'e1ec3bf'.padEnd(40, '0'), samples: new Map([['R', read], ['W', write]]), forgotten: { sqlite: ['0006_x'], postgres: ['0006_x'] } },
    ops.map((op) => ({ id: op.id, label: op.label }) as OpSummary),
  );
  t.match(section.join('\n'), /SQLite: 0006_x; PostgreSQL: 0006_x/, 'the migrations its copies forget are named per engine');
  const table = section.filter((line) => line.startsWith('|'));
  t.equal(table[0], '| Engine | Operation | This build req/s | Compared req/s | This build p50 ms | Compared p50 ms | This build p99 ms | Compared p99 ms | This build CPU µs | Compared CPU µs | CPU this / compared | ≤ 1.05× |');
  t.same(table.slice(2).map((row) => row.split(' | ').slice(-4).join(' | ')), ['200 | 100 | 1.04× | met |', '100 | 100 | 1.00× | **missed** |', '106 | 100 | 1.06× | **missed** |', '100 | 100 | 1.00× | met |'],
    'per engine and operation: CPU µs of both builds, their ratio and the verdict');
});

t.test('MCP: a call ≤ 3× the CPU of the same call over HTTP, 3.5× for the read on PostgreSQL; peak RSS < 280 MiB', async (t) => {
  const call = (kind: 'read' | 'write', ratio: number): McpOperationResult =>
    ({ id: kind, label: kind, kind, tool: `${kind}Tool`, ok: true, rounds: [{ http: load(100), mcp: load(100 * ratio) }] });
  const checks = mcpTargets({
    sqlite: { operations: [call('read', 3.2), call('write', 2.9)], peakRssKb: 279 * 1024 },
    postgres: { operations: [call('read', 3.4), call('write', 3.1)], peakRssKb: 281 * 1024 },
  });
  t.same(checks.map((c) => [c.engine, c.target, c.met]), [
    ['sqlite', 'CPU per MCP call ≤ 3× the same read over HTTP, 3.5× on PostgreSQL', false],
    ['sqlite', 'CPU per MCP call ≤ 3× the same write over HTTP', true],
    ['sqlite', 'Peak RSS with MCP in use < 280 MiB', true],
    ['postgres', 'CPU per MCP call ≤ 3× the same read over HTTP, 3.5× on PostgreSQL', true],
    ['postgres', 'CPU per MCP call ≤ 3× the same write over HTTP', false],
    ['postgres', 'Peak RSS with MCP in use < 280 MiB', false],
  ], "a read's verdicts on the two engines share a target, and so a row of the table");
});
