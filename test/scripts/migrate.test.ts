import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { isEmpty, openStore } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { nowMs } from '../../src/store/statements.js';
import { engine, freshDatabase } from '../test-store.js';

// `npm run migrate` applies the migrations to DATABASE_URL and exits (docs/operating.md, "Migrations: expand and contract");
// deployments run it before starting nodes, and several may run at once (docs/decisions.md,
// "Engines": migrations run under a lock).

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const names = Object.keys(migrations);

async function migrate(databaseUrl: string, args: string[] = []) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.mjs', 'scripts/migrate.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A database of the engine under test that nothing has migrated yet. */
async function unmigrated(t: Test): Promise<string> {
  if (engine === 'sqlite') return `file:${join(t.testdir(), 'data', 'booking.sqlite')}`;
  const database = await freshDatabase();
  t.teardown(database.drop);
  const store = await openStore(database.url, { migrate: false });
  await sql`drop schema public cascade`.execute(store.db);
  await sql`create schema public`.execute(store.db);
  await store.close();
  return database.url;
}

async function recorded(databaseUrl: string): Promise<{ names: string[]; empty: boolean }> {
  const store = await openStore(databaseUrl, { migrate: false });
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
    return { names: rows.map((row) => row.name), empty: await isEmpty(store) };
  } finally {
    await store.close();
  }
}

t.test(`on an empty ${engine} database: applies every migration once, loads no data, then has nothing to do`, async (t) => {
  const url = await unmigrated(t);
  const first = await migrate(url);
  t.equal(first.code, 0, first.stderr);
  t.equal(first.stdout, `Applied ${names.length} migration(s) to ${url}: ${names.join(', ')}.\n`);
  t.same(await recorded(url), { names, empty: true }, 'every migration recorded; no demo data');
  const again = await migrate(url);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, new RegExp(`is up to date \\(${names.length} migration\\(s\\), the last ${names.at(-1)}\\)`));
});

t.test(`three at once on an empty ${engine} database: all succeed, each migration applied once`, async (t) => {
  const url = await unmigrated(t);
  const runs = await Promise.all([migrate(url), migrate(url), migrate(url)]);
  t.same(runs.map((r) => r.code), [0, 0, 0], runs.map((r) => r.stderr).join('\n'));
  t.same((await recorded(url)).names, names);
});

t.test('a database migrated by a newer version is refused, untouched', async (t) => {
  const path = join(t.testdir(), 'newer.sqlite');
  await (await openStore(`file:${path}`)).close();
  const raw = new SQLite(path);
  raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', new Date().toISOString());
  raw.close();
  const res = await migrate(`file:${path}`);
  t.equal(res.code, 1);
  t.equal(res.stdout, '');
  t.match(res.stderr, /newer version.*"9999_from_the_future"/);
});

t.test('--contract is refused while a node of an older version beats, naming it; it runs once that node is gone', async (t) => {
  const url = await unmigrated(t);
  t.equal((await migrate(url)).code, 0);
  const store = await openStore(url, { migrate: false });
  t.teardown(() => store.close());
  const beatAgo = (ms: number) => sql<number>`${nowMs(store.db)} - ${ms}`;
  await store.db.insertInto('store_nodes').values({ id: 'node-of-0005', version: '0005_event_context', started_at: beatAgo(60_000), beat_at: beatAgo(1000) }).execute();
  const refused = await migrate(url, ['--contract']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /Refused: 1 node\(s\) of an older version are alive.*node-of-0005 \(version 0005_event_context\)/);
  // A node of this version beating does not stand in the way.
  await store.db.updateTable('store_nodes').set({ version: names.at(-1)! }).execute();
  const allowed = await migrate(url, ['--contract']);
  t.equal(allowed.code, 0, allowed.stderr);
  t.match(allowed.stdout, /is up to date/);
  // Nor does an older node whose last beat is more than 15 s old: it is gone.
  await store.db.updateTable('store_nodes').set({ version: '0005_event_context', beat_at: beatAgo(20_000) }).execute();
  t.equal((await migrate(url, ['--contract'])).code, 0);
  const usage = await migrate(url, ['--contrac']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /usage: npm run migrate \[-- --contract\]/);
});

t.test('a bad DATABASE_URL is refused naming the variable; a password is never printed', async (t) => {
  const bad = await migrate('mysql://localhost/booking');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /DATABASE_URL/);
  // Nothing listens on port 1: the connection fails, and the message must not echo the password.
  const refused = await migrate('postgres://booking:hunter2-secret@127.0.0.1:1/booking');
  t.equal(refused.code, 1);
  t.match(refused.stderr, /migrate failed/);
  t.notMatch(refused.stderr, /hunter2/);
});
