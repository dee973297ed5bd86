import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { openStore, StoreVersionError, type Store } from '../../src/store/db.js';
import { LAST_MIGRATION, migrations, type MigrationKind } from '../../src/store/migrations/index.js';
import type { Database } from '../../src/store/schema.js';
import { nowMs } from '../../src/store/statements.js';
import { indexOnExistingTable } from '../../src/store/migrations/helpers.js';
import { HEARTBEAT_MS, migrate, OlderNodesAlive, olderNodesAlive, type KnownMigrations } from '../../src/store/versions.js';
import { assertContract, testConfig } from '../helper.js';
import { engine, freshDatabase } from '../test-store.js';

// Expand and contract migrations, and nodes of two versions (docs/operating.md, "Deploying a
// new version with no downtime").

let files = 0;
/** A database of the engine under test that nothing has migrated (SQLite: a file, so that it can be reopened). */
async function database(t: Test): Promise<string> {
  const db = await freshDatabase(`file:${join(t.testdir(), `store-${(files += 1)}.sqlite`)}`);
  t.teardown(db.drop);
  if (engine === 'postgres') {
    const store = await openStore(db.url, { migrate: false });
    await sql`drop schema public cascade`.execute(store.db);
    await sql`create schema public`.execute(store.db);
    await store.close();
  }
  return db.url;
}

async function opened(t: Test, url: string, options = {}): Promise<Store> {
  const store = await openStore(url, options);
  t.teardown(() => store.close());
  return store;
}

/** Every table's columns with their types and whether they take null, and every index by table. */
async function shape(db: Kysely<Database>) {
  const tables = await db.introspection.getTables();
  return Object.fromEntries(tables.map((table) => [table.name, Object.fromEntries(table.columns.map((c) => [c.name, { type: c.dataType, nullable: c.isNullable }]))]));
}

t.test('every migration has a kind, and the kind of each applied one is recorded', async (t) => {
  const store = await opened(t, await database(t));
  for (const [name, migration] of Object.entries(migrations)) t.ok(['expand', 'contract'].includes(migration.kind), `${name}: ${migration.kind}`);
  const rows = await store.db.selectFrom('migration_kinds').selectAll().orderBy('name').execute();
  t.strictSame(rows, Object.entries(migrations).map(([name, m]) => ({ name, kind: m.kind })));
  t.strictSame(store.schema, { applied: Object.keys(migrations), newer: [], waiting: [] });
});

t.test('an expand migration drops and narrows nothing: every table and column before it stays, of its type, as nullable', async (t) => {
  const url = await database(t);
  const store = await opened(t, url, { migrate: false });
  const names = Object.keys(migrations);
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => ({ ...migrations }) } });
  let before = await shape(store.db);
  for (const name of names) {
    const { error } = await migrator.migrateTo(name);
    t.error(error, `${name} applies`);
    const after = await shape(store.db);
    if (migrations[name].kind === 'expand') {
      for (const [table, columns] of Object.entries(before)) {
        t.ok(after[table], `${name}: ${table} is still there`);
        for (const [column, { type, nullable }] of Object.entries(columns)) {
          t.equal(after[table]?.[column]?.type, type, `${name}: ${table}.${column} keeps its type`);
          if (nullable) t.equal(after[table]?.[column]?.nullable, true, `${name}: ${table}.${column} still takes null`);
        }
      }
    }
    before = after;
  }
});

const noop = async () => {};
const made = (kind: MigrationKind, up: Migration['up']) => ({ kind, up, down: noop });

t.test('a node applies pending expand migrations, before a contract one that waits; --contract applies the rest', async (t) => {
  const url = await database(t);
  const store = await opened(t, url, { migrate: false });
  const table = (name: string) => async (db: Kysely<any>) => db.schema.createTable(name).addColumn('id', 'integer').addColumn('gone', 'text').execute();
  const known: KnownMigrations = {
    '0001_a': made('expand', table('versions_a')),
    '0002_drop': made('contract', async (db) => db.schema.alterTable('versions_a').dropColumn('gone').execute()),
    '0003_b': made('expand', table('versions_b')),
  };
  const first = await migrate(store.db, { known: { '0001_a': known['0001_a'] } });
  t.strictSame(first, { applied: ['0001_a'], newer: [], waiting: [] }, 'the first version');
  const second = await migrate(store.db, { known });
  t.strictSame(second, { applied: ['0003_b'], newer: [], waiting: ['0002_drop'] }, 'the expand one, out of order; the contract one waits');
  t.ok((await shape(store.db)).versions_a.gone, 'the contract migration did not run');
  const third = await migrate(store.db, { known, contract: true });
  t.strictSame(third, { applied: ['0002_drop'], newer: [], waiting: [] }, '--contract');
  t.notOk((await shape(store.db)).versions_a.gone);
  const kinds = await store.db.selectFrom('migration_kinds').selectAll().where('name', 'in', Object.keys(known)).orderBy('name').execute();
  t.strictSame(kinds.map((row) => row.kind), ['expand', 'contract', 'expand'], 'each kind recorded as it was applied');

  const empty = await opened(t, await database(t), { migrate: false });
  t.strictSame(await migrate(empty.db, { known }), { applied: Object.keys(known), newer: [], waiting: [] }, 'an empty store gets every migration');
});

t.test('a migration that runs in no transaction builds an index on a table that holds rows, concurrently on PostgreSQL, and can run again', async (t) => {
  const store = await opened(t, await database(t), { migrate: false });
  const index = { ...made('expand', (db) => indexOnExistingTable(db, 'versions_rows_n_idx', 'versions_rows', ['n'])), transaction: false as const };
  const known: KnownMigrations = {
    '0001_rows': made('expand', async (db) => {
      await db.schema.createTable('versions_rows').addColumn('n', 'integer').execute();
      await db.insertInto('versions_rows').values(Array.from({ length: 100 }, (_, n) => ({ n }))).execute();
    }),
    '0002_index': index,
  };
  t.strictSame((await migrate(store.db, { known })).applied, ['0001_rows', '0002_index']);
  const indexes = async () => (engine === 'postgres'
    ? (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'versions_rows'`.execute(store.db)).rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'versions_rows'`.execute(store.db)).rows
  ).map((row) => row.name);
  t.strictSame(await indexes(), ['versions_rows_n_idx']);
  t.strictSame(await store.db.selectFrom('migration_kinds').select('kind').where('name', '=', '0002_index').execute(), [{ kind: 'expand' }]);
  await index.up(store.db);
  t.strictSame(await indexes(), ['versions_rows_n_idx'], 'run again, it changes nothing');
});

/** The database as a newer version leaves it: one more migration, of `kind`, recorded. */
async function newerMigration(url: string, kind: MigrationKind | undefined) {
  const store = await openStore(url);
  const name = '9999_made_for_this_test';
  await sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(store.db);
  if (kind) await store.db.insertInto('migration_kinds').values({ name, kind }).execute();
  await store.close();
  return name;
}

t.test('an older node starts and serves over an expand migration it does not know', async (t) => {
  const url = await database(t);
  const name = await newerMigration(url, 'expand');
  const store = await opened(t, url);
  t.strictSame(store.schema, { applied: [], newer: [name], waiting: [] });
  const app = await buildApp(testConfig({ DATABASE_URL: url }), { store });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/categories' });
  assertContract('GET', '/categories', res);
  t.equal(res.statusCode, 200, 'it serves');
});

t.test('an older node refuses a contract migration it does not know, and one of no recorded kind', async (t) => {
  for (const kind of ['contract', undefined] as const) {
    const url = await database(t);
    const name = await newerMigration(url, kind);
    await t.rejects(openStore(url), StoreVersionError, `${kind ?? 'no kind'}: refused`);
    await t.rejects(openStore(url), { message: new RegExp(name) });
  }
});

t.test('a serving node records its version as it opens the store, and removes it as it closes; an older one is found while it beats', async (t) => {
  const url = await database(t);
  const onError = (err: unknown) => t.fail(String(err));
  const store = await openStore(url, { node: { onError } });
  let open = true;
  t.teardown(() => (open ? store.close() : undefined));
  const observer = await opened(t, url, { migrate: false });
  const ids = async () => (await observer.db.selectFrom('store_nodes').select('id').execute()).map((row) => row.id).sort();
  const rows = await observer.db.selectFrom('store_nodes').selectAll().execute();
  t.equal(rows.length, 1);
  t.match(rows[0], { id: store.schema.node, version: LAST_MIGRATION });
  t.strictSame(await olderNodesAlive(observer.db), [], 'no node is older than this version');
  const beat = (agoMs: number) => sql<number>`${nowMs(observer.db)} - ${agoMs}`;
  await observer.db.insertInto('store_nodes').values({ id: 'old-alive', version: '0005_event_context', started_at: beat(60_000), beat_at: beat(2000) }).execute();
  await observer.db.insertInto('store_nodes').values({ id: 'old-dead', version: '0005_event_context', started_at: beat(60_000), beat_at: beat(20_000) }).execute();
  t.strictSame(await olderNodesAlive(observer.db), [{ id: 'old-alive', version: '0005_event_context' }], 'alive for 15 s after its last beat');
  await store.close();
  open = false;
  t.strictSame(await ids(), ['old-alive', 'old-dead'], 'a closed store removed its node');
  const next = await opened(t, url, { node: { onError } });
  t.strictSame(await ids(), [next.schema.node, 'old-alive'].sort(), 'a registering node deletes the dead ones');
});

t.test(`a serving node's heartbeat moves its beat_at every ${HEARTBEAT_MS} ms, by the database's clock`, async (t) => {
  const url = await database(t);
  const store = await opened(t, url, { node: { onError: (err: unknown) => t.fail(String(err)) } });
  const row = () => store.db.selectFrom('store_nodes').select(['started_at', 'beat_at']).where('id', '=', store.schema.node!).executeTakeFirstOrThrow();
  const first = await row();
  await sleep(HEARTBEAT_MS + 2000);
  const later = await row();
  t.equal(Number(later.started_at), Number(first.started_at), 'started_at stays');
  t.ok(Number(later.beat_at) - Number(first.beat_at) >= HEARTBEAT_MS - 100, `beat_at moved by ${Number(later.beat_at) - Number(first.beat_at)} ms`);
});

t.test('an older node registers under the lock it checks the schema in: --contract sees it, or it sees the contract migration', async (t) => {
  const older: KnownMigrations = { '0001_a': made('expand', async (db) => db.schema.createTable('versions_raced').addColumn('id', 'integer').execute()) };
  // On PostgreSQL the contract migration holds the lock a while, so that the two overlap. SQLite's
  // lock waits block the thread, and in one process the holder could then never finish.
  const newer: KnownMigrations = { ...older, '0002_b': made('contract', engine === 'postgres' ? async () => sleep(30) : noop) };
  const refused = new Set<string>();
  // A positive head start lets the node go first, a negative one the contract migration.
  for (const headStartMs of [40, 15, 5, 0, -5, -15, -40]) {
    const url = await database(t);
    await migrate((await opened(t, url, { migrate: false })).db, { known: older });
    const [node, contractor] = [await opened(t, url, { migrate: false }), await opened(t, url, { migrate: false })];
    const [started, contracted] = await Promise.allSettled([
      sleep(Math.max(0, -headStartMs)).then(() => node.migrateExclusively((db) => migrate(db, { known: older, register: true }))),
      sleep(Math.max(0, headStartMs)).then(() => contractor.migrateExclusively((db) => migrate(db, { known: newer, contract: true }))),
    ]);
    const refusals = [started, contracted].filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason);
    t.equal(refusals.length, 1, `${headStartMs} ms: exactly one of the two is refused`);
    t.ok(refusals[0] instanceof (started.status === 'rejected' ? StoreVersionError : OlderNodesAlive), `${headStartMs} ms: ${refusals[0]?.name}: ${refusals[0]?.message}`);
    refused.add(refusals[0]?.name);
  }
  t.strictSame([...refused].sort(), ['OlderNodesAlive', 'StoreVersionError'], 'either may go first');
});

if (engine === 'postgres') {
  t.test('PostgreSQL: an expand migration gives up on a lock it cannot take within its lock_timeout', async (t) => {
  const url = await database(t);
  const store = await opened(t, url, { migrate: false });
  const blocker = await opened(t, url, { migrate: false });
  await migrate(store.db, { known: { '0001_a': made('expand', async (db) => db.schema.createTable('versions_locked').addColumn('id', 'integer').execute()) } });
  let release!: () => void;
  const held = blocker.db.transaction().execute(async (trx) => {
    await sql`lock table versions_locked in access exclusive mode`.execute(trx);
    await new Promise<void>((resolve) => (release = resolve));
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const known: KnownMigrations = {
    '0001_a': made('expand', noop),
    '0002_b': made('expand', async (db) => db.schema.alterTable('versions_locked').addColumn('more', 'text').execute()),
  };
  await t.rejects(migrate(store.db, { known }), /lock timeout/, 'refused rather than queued');
  release();
  await held;
  t.strictSame((await migrate(store.db, { known })).applied, ['0002_b'], 'applied once the lock is free');
  });
}
