import { join } from 'node:path';
import { sql, type RawBuilder } from 'kysely';
import t, { type Test } from 'tap';
import { StoreConfigError, StoreVersionError, isEmpty, openStore, parseDatabaseUrl, type Store } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { BOOKKEEPING_TABLES, TABLE_NAMES } from '../../src/store/schema.js';
import { COMPANY_A as A } from '../fixtures.js';
import { engine, freshDatabase } from '../test-store.js';
import { memoryStore } from './store-helper.js';

// The migrations, on the engine under test (../test-store.ts). Where the check itself is
// the engine's (its catalogue, its query plans, its PRAGMAs), each engine has its own, said
// so in the test's name.

/** The names of the store's indexes, from the engine's catalogue. */
async function indexes(store: Store): Promise<string[]> {
  const { rows } =
    engine === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(store.db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(store.db);
  return rows.map((row) => row.name);
}

/**
 * How the engine would run `query`. PostgreSQL's planner rightly prefers reading a table
 * of a few rows whole; with sequential scans priced out, the plan shows whether an index
 * can answer the query, which is what the tests ask.
 */
async function plan(store: Store, query: RawBuilder<unknown>): Promise<string> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(store.db);
    return rows.map((row) => row.detail).join('\n');
  }
  return store.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** A database that can be closed and opened again: an SQLite file, or a PostgreSQL database. */
async function reopenable(t: Test, name: string): Promise<string> {
  if (engine === 'sqlite') return `file:${join(t.testdir(), 'nested', 'dir', `${name}.sqlite`)}`; // parent dirs are created
  const database = await freshDatabase();
  t.teardown(database.drop);
  return database.url;
}

t.test('the migrations create every table of the schema, and no other', async (t) => {
  const store = await memoryStore(t);
  const internal = ['kysely_migration', 'kysely_migration_lock', 'sqlite_sequence', ...BOOKKEEPING_TABLES];
  const tables = (await store.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name);
  t.same(tables.filter((name) => !internal.includes(name)).sort(), [...TABLE_NAMES].sort());
});

t.test('the lookups the operations make have indexes', async (t) => {
  const store = await memoryStore(t);
  const names = await indexes(store);
  for (const name of [
    'services_company_id_idx',
    'resources_company_id_idx',
    'printouts_company_id_idx',
    'booking_resources_resource_idx',
    'rebate_codes_company_sign_key_unique',
    'rebate_code_transactions_code_idx',
    'billing_method_countries_country_idx',
    'customers_company_email_idx',
    'mcp_usage_company_at_idx',
  ]) {
    t.ok(names.includes(name), name);
  }
});

t.test(`the rolling MCP window sum is answered from the (company_id, at) index alone (${engine} plan)`, async (t) => {
  const store = await memoryStore(t);
  const text = await plan(store, sql`select sum(tokens_used) from mcp_usage where company_id = ${A} and at >= ${'2026-01-01T00:00:00.000Z'}`);
  t.match(text, engine === 'sqlite' ? /COVERING INDEX mcp_usage_company_at_idx/ : /Index Only Scan using mcp_usage_company_at_idx/);
});

t.test(`a page of printouts ordered by Name is read from an index, not sorted (${engine} plan)`, async (t) => {
  const store = await memoryStore(t);
  const text = await plan(store, sql`select * from printouts where company_id = ${A} order by name asc, id asc limit 25 offset 2500`);
  t.match(text, engine === 'sqlite' ? /USING INDEX printouts_company_name_idx/ : /Index Scan using printouts_company_name_idx/);
  t.notMatch(text, engine === 'sqlite' ? /TEMP B-TREE/ : /Sort/, 'no sort step');
});

t.test('opening a migrated database again is idempotent and keeps its data', async (t) => {
  const url = await reopenable(t, 'x');
  const first = await openStore(url);
  t.ok(await isEmpty(first));
  await first.db.insertInto('companies').values({ id: A, name: 'A', site_path: null, payment_provider_id: null, mcp_token_limit: null, created: new Date().toISOString() }).execute();
  await first.close();

  const second = await openStore(url);
  t.teardown(() => second.close());
  t.notOk(await isEmpty(second));
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(second.db);
  t.same(rows.map((row) => row.name), Object.keys(migrations), 'each migration recorded once');
});

// SQLite PRAGMAs: the SQLite half of the suite has this test; PostgreSQL enforces foreign keys always.
if (engine === 'sqlite') {
  t.test('SQLite only: a file database runs in WAL mode with foreign keys enforced', async (t) => {
  const store = await openStore(await reopenable(t, 'pragmas'));
  t.teardown(() => store.close());
  const { rows: mode } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
  t.equal(mode[0].journal_mode, 'wal');
  const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
  t.equal(fk[0].foreign_keys, 1);
  });
}

t.test('a database migrated by newer code refuses to open, naming the unknown migration', async (t) => {
  const url = await reopenable(t, 'newer');
  const store = await openStore(url);
  await sql`insert into kysely_migration (name, timestamp) values (${'9999_from_the_future'}, ${new Date().toISOString()})`.execute(store.db);
  await store.close();

  await t.rejects(openStore(url), StoreVersionError);
  await t.rejects(openStore(url), { message: /9999_from_the_future/ });
});

t.test('DATABASE_URL forms', async (t) => {
  t.same(parseDatabaseUrl('file::memory:'), { kind: 'memory' });
  t.same(parseDatabaseUrl('file:/abs/x.sqlite'), { kind: 'file', path: '/abs/x.sqlite' });
  t.same(parseDatabaseUrl('file:///abs/x.sqlite'), { kind: 'file', path: '/abs/x.sqlite' });
  t.same(parseDatabaseUrl('file:./data/x.sqlite'), { kind: 'file', path: join(process.cwd(), 'data/x.sqlite') });
  t.same(parseDatabaseUrl('postgres://u:p@localhost/db'), { kind: 'postgres', url: 'postgres://u:p@localhost/db' });
  t.same(parseDatabaseUrl('postgresql://localhost/db'), { kind: 'postgres', url: 'postgresql://localhost/db' });
  t.throws(() => parseDatabaseUrl('mysql://localhost/db'), StoreConfigError);
});
