import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import t from 'tap';
import { StoreConfigError, StoreVersionError, isEmpty, openStore, parseDatabaseUrl } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { TABLE_NAMES } from '../../src/store/schema.js';
import { COMPANY_A as A } from '../fixtures.js';
import { memoryStore } from './store-helper.js';

async function objects(store: Awaited<ReturnType<typeof openStore>>, type: 'table' | 'index') {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = ${type} order by name`.execute(store.db);
  return rows.map((row) => row.name);
}

t.test('the migrations create every table of the schema, and no other', async (t) => {
  const store = await memoryStore(t);
  const internal = ['kysely_migration', 'kysely_migration_lock', 'sqlite_sequence'];
  const tables = (await objects(store, 'table')).filter((name) => !internal.includes(name));
  t.same(tables.sort(), [...TABLE_NAMES].sort());
});

t.test('the lookups the operations make have indexes', async (t) => {
  const store = await memoryStore(t);
  const indexes = await objects(store, 'index');
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
    t.ok(indexes.includes(name), name);
  }
});

t.test('the rolling MCP window sum is answered from the (company_id, at) index', async (t) => {
  const store = await memoryStore(t);
  const { rows } = await sql<{ detail: string }>`explain query plan
    select sum(tokens_used) from mcp_usage where company_id = ${A} and at >= ${'2026-01-01T00:00:00.000Z'}`.execute(store.db);
  t.match(rows.map((row) => row.detail).join('\n'), /COVERING INDEX mcp_usage_company_at_idx/);
});

t.test('a page of printouts ordered by Name is read from an index, not sorted', async (t) => {
  const store = await memoryStore(t);
  const { rows } = await sql<{ detail: string }>`explain query plan
    select * from printouts where company_id = ${A} order by name asc, id asc limit 25 offset 2500`.execute(store.db);
  const plan = rows.map((row) => row.detail).join('\n');
  t.match(plan, /USING INDEX printouts_company_name_idx/);
  t.notMatch(plan, /TEMP B-TREE/, 'no sort step');
});

t.test('reopening a file database is idempotent and keeps its data', async (t) => {
  const url = `file:${join(t.testdir(), 'nested', 'dir', 'x.sqlite')}`; // parent dirs are created
  const first = await openStore(url);
  t.ok(await isEmpty(first));
  await first.db.insertInto('companies').values({ id: A, name: 'A', site_path: null, payment_provider_id: null, mcp_token_limit: null, created: new Date().toISOString() }).execute();
  await first.close();

  const second = await openStore(url);
  t.teardown(() => second.close());
  t.notOk(await isEmpty(second));
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
  t.same(rows.map((row) => row.name), Object.keys(migrations), 'each migration recorded once');
  const { rows: mode } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(second.db);
  t.equal(mode[0].journal_mode, 'wal');
  const { rows: fk } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(second.db);
  t.equal(fk[0].foreign_keys, 1);
});

t.test('a database migrated by newer code refuses to open, naming the unknown migration', async (t) => {
  const path = join(t.testdir(), 'newer.sqlite');
  const store = await openStore(`file:${path}`);
  await store.close();
  const raw = new SQLite(path);
  raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
  raw.close();

  await t.rejects(openStore(`file:${path}`), StoreVersionError);
  await t.rejects(openStore(`file:${path}`), { message: /9999_from_the_future/ });
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
