import t from 'tap';
import { MAX_BIND_PARAMETERS, rowsPerChunk } from '../../scripts/bench/bulk.js';
import { commandLine } from '../../scripts/bench/options.js';
import { benchDatabaseName, choosePostgres, databaseUrl, redacted } from '../../scripts/bench/postgres.js';
import { markdownTable, perEngine } from '../../scripts/bench/tables.js';

// The bench's pure helpers: what decides where PostgreSQL comes from, what its database is
// called, how rows are chunked, and how results.md lays the engines side by side.

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
