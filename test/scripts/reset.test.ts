import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { resetStore } from '../../scripts/reset-store.js';
import { generatedSecretFile, resolveJwtSecret } from '../../src/auth/secret.js';
import { mintToken } from '../../src/auth/token.js';
import { loadConfig, type Config } from '../../src/config.js';
import { loadDemoData } from '../../src/import/demo-data.js';
import { isEmpty, openStore } from '../../src/store/db.js';
import { DEMO_COMPANY_A, DEMO_IDS } from '../../src/store/demo-data.js';
import { migrations } from '../../src/store/migrations/index.js';
import { engine, freshDatabase } from '../test-store.js';
import { unreachablePostgres } from './unreachable-postgres.js';

// `npm run reset`: the store of DATABASE_URL starts over as a first `npm start` finds it;
// on SQLite the generated JWT secret goes too (and earlier tokens with it); a PostgreSQL
// database only when asked for by --postgres.

const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'a-secret-set-by-the-operator';

function resetCommand(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/reset.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60000,
  });
}

/** The configuration of a reset: DATABASE_URL and what else `env` says, nothing from this process. */
const configOf = (env: Record<string, string>): Config => loadConfig({}, env);

/** A temporary directory for an SQLite database, removed when the test ends. */
function sqliteFile(t: Test): { dir: string; path: string; url: string } {
  const dir = mkdtempSync(join(tmpdir(), 'booking-reset-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'booking.sqlite');
  return { dir, path, url: `file:${path}` };
}

/** Loads the demo data into the store of `url` and renames a demo tag, so a reset has something to undo. */
async function usedStore(url: string): Promise<void> {
  const store = await openStore(url);
  try {
    await loadDemoData(store);
    await store.db.updateTable('tags').set({ name: 'renamed since' }).where('id', '=', DEMO_IDS.tags.vip).execute();
  } finally {
    await store.close();
  }
}

/** The name of the demo tag usedStore renames, read from the store of `url`; undefined when it is gone. */
async function vipTagName(url: string): Promise<string | undefined> {
  const store = await openStore(url);
  try {
    const row = await store.db.selectFrom('tags').select('name').where('id', '=', DEMO_IDS.tags.vip).executeTakeFirst();
    return row?.name;
  } finally {
    await store.close();
  }
}

/** What a reset reported: these sentences, in this order, and no other. */
function reported(t: Test, done: string[], sentences: RegExp[]): void {
  t.match(done, sentences);
  t.equal(done.length, sentences.length, done.join('\n'));
}

t.test('a PostgreSQL DATABASE_URL is refused without --postgres, before connecting, naming the flag', async (t) => {
  const run = resetCommand({ DATABASE_URL: await unreachablePostgres('booking:hunter2'), AUTH_JWT_SECRET: SECRET });
  t.equal(run.status, 1);
  t.equal(run.stdout, '');
  t.match(run.stderr, /PostgreSQL database "booking" on 127\.0\.0\.1:\d+; nothing was touched/);
  t.match(run.stderr, /--postgres/);
  t.notMatch(run.stderr, /hunter2/, 'the password is not printed');
  t.notMatch(run.stderr, /ECONNREFUSED/, 'refused before any connection was tried');
});

t.test('an unknown option is refused with the usage', async (t) => {
  const run = resetCommand({ DATABASE_URL: 'file::memory:' }, '--force');
  t.equal(run.status, 1);
  t.match(run.stderr, /--force[\s\S]*usage: npm run reset/);
});

t.test('an in-memory DATABASE_URL has nothing to reset', async (t) => {
  reported(t, await resetStore(configOf({ DATABASE_URL: 'file::memory:' })), [/in-memory store.*nothing to reset/]);
});

// The SQLite half of the suite: what a reset does to a database file and the secret beside it.
if (engine === 'sqlite') {
  t.test('on SQLite, the database file and the generated JWT secret are deleted, earlier tokens stop working, and the demo data is back', async (t) => {
    const file = sqliteFile(t);
    await usedStore(file.url);
    const env = { DATABASE_URL: file.url, AUTH_JWT_SECRET: '', AUTH_JWKS_URL: '', DEMO_DATA: '' };
    const secretFile = generatedSecretFile(file.path);
    const before = resolveJwtSecret(configOf(env));
    t.ok(existsSync(secretFile));
    const earlier = await mintToken(before, { companyId: DEMO_COMPANY_A, roles: ['superadmin'] });
    t.equal(await vipTagName(file.url), 'renamed since');

    const run = resetCommand(env);
    t.equal(run.status, 0, run.stderr);
    t.match(run.stdout, `Deleted the SQLite database ${file.path}.`);
    t.match(run.stdout, /Deleted the generated JWT secret .*every token minted before now is refused/);
    t.match(run.stdout, /with the demo data set/);

    t.equal(await vipTagName(file.url), 'VIP', 'the demo data as it was loaded');
    t.notOk(existsSync(secretFile), 'the secret is gone until the server or the token command needs one');
    const after = resolveJwtSecret(configOf(env));
    t.not(after, before, 'a new secret');
    await t.rejects(jwtVerify(earlier, new TextEncoder().encode(after)), 'a token minted before the reset is refused');
  });

  t.test('with AUTH_JWT_SECRET set, a reset says that tokens stay valid and removes an unused generated secret', async (t) => {
    const file = sqliteFile(t);
    await usedStore(file.url);
    const env = { DATABASE_URL: file.url };
    resolveJwtSecret(configOf(env)); // a secret left by an earlier run without AUTH_JWT_SECRET
    const done = await resetStore(configOf({ ...env, AUTH_JWT_SECRET: SECRET }));
    reported(t, done, [/Deleted the SQLite database/, /Deleted the generated JWT secret .*not in use/, /with the demo data set/, /AUTH_JWT_SECRET stay valid/]);
    t.notOk(existsSync(generatedSecretFile(file.path)));
    t.equal(await vipTagName(file.url), 'VIP');
  });

  t.test('with DEMO_DATA=false the store is made again migrated and empty', async (t) => {
    const file = sqliteFile(t);
    await usedStore(file.url);
    reported(t, await resetStore(configOf({ DATABASE_URL: file.url, DEMO_DATA: 'false' })), [/Deleted the SQLite database/, /migrated and empty \(DEMO_DATA=false\)/]);
    const store = await openStore(file.url, { migrate: false });
    t.teardown(() => store.close());
    t.ok(await isEmpty(store));
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
    t.same(rows.map((row) => row.name), Object.keys(migrations), 'every migration applied');
  });

  t.test('a database file that does not exist yet is created, with its folder', async (t) => {
    const file = sqliteFile(t);
    const url = `file:${join(file.dir, 'data', 'booking.sqlite')}`;
    reported(t, await resetStore(configOf({ DATABASE_URL: url })), [/There was no SQLite database at/, /with the demo data set/]);
    t.equal(await vipTagName(url), 'VIP');
  });
}

// The PostgreSQL half: with --postgres, the service's tables go and come back; nothing else does.
if (engine === 'postgres') {
  t.test('on PostgreSQL with --postgres, the tables of the service are dropped and made again with the demo data; other tables stay', async (t) => {
    const database = await freshDatabase();
    t.teardown(database.drop);
    await usedStore(database.url);
    const other = await openStore(database.url, { migrate: false });
    await sql`create table not_the_service (id int)`.execute(other.db);
    await other.close();

    const done = await resetStore(configOf({ DATABASE_URL: database.url, AUTH_JWT_SECRET: SECRET }), { postgres: true });
    reported(t, done, [
      new RegExp(`Dropped the tables of this service .* \\(${Object.keys(migrations).length} migration\\(s\\) reverted\\)`),
      /with the demo data set/,
      /AUTH_JWT_SECRET stay valid/,
    ]);
    t.equal(await vipTagName(database.url), 'VIP');
    const store = await openStore(database.url, { migrate: false });
    t.teardown(() => store.close());
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from not_the_service`.execute(store.db);
    t.same(rows, [{ n: 0 }], 'a table the migrations did not make is left alone');
  });
}
