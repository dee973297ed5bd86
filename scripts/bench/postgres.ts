import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore, parseDatabaseUrl } from '../../src/store/db.js';
import { generateInto, type Dataset } from './dataset.js';

// PostgreSQL for the bench: which server (or why none), and a fresh database per data set,
// loaded by the generator that writes the SQLite files, and dropped at the end.

/** Where PostgreSQL comes from, or why it is not measured (said in the log and in results.md). */
export type PostgresChoice = { server: string; from: string } | { skipped: string };

const VARIABLES = ['BENCH_POSTGRES_URL', 'TEST_POSTGRES_URL'];

/**
 * `--postgres URL` (or `off`), else BENCH_POSTGRES_URL, else TEST_POSTGRES_URL (the server
 * `npm test` runs its PostgreSQL half on). A URL that is not postgres:// is an error.
 */
export function choosePostgres(option: string | undefined, env: Record<string, string | undefined>): PostgresChoice {
  if (option === 'off') return { skipped: 'switched off with --postgres off' };
  const from = option ? '--postgres' : VARIABLES.find((name) => env[name]);
  const server = option || (from ? env[from] : undefined);
  if (!server || !from) return { skipped: `no server named (--postgres, ${VARIABLES.join(' or ')})` };
  let kind: string | undefined;
  try {
    kind = parseDatabaseUrl(server).kind;
  } catch { /* reported below */ }
  if (kind !== 'postgres') throw new Error(`${from} must be a postgres:// URL or off (got ${redacted(server)})`);
  return { server, from };
}

/** The URL without its password, for logs and results.md. */
export function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * A database name of the bench's own, per run and scale: runs sharing a server (other
 * checkouts, a CI job) never meet, and a database left by an interrupted run says whose it is.
 * Only [a-z0-9_], so it needs no quoting.
 */
export function benchDatabaseName(scale: number, random: string): string {
  if (!/^[a-z0-9]{4,16}$/.test(random)) throw new Error('the random part must be 4-16 lower-case letters or digits');
  return `booking_bench_s${String(scale).replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${random}`;
}

/** The server's URL pointing at `database` instead (user, password, host and parameters kept). */
export function databaseUrl(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(server: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The server's version; a server that cannot be reached stops the run, saying how to run without it. */
export async function serverVersion(server: string): Promise<string> {
  try {
    return await admin(server, async (client) => (await client.query<{ server_version: string }>('show server_version')).rows[0].server_version);
  } catch (err) {
    throw new Error(`PostgreSQL at ${redacted(server)}: ${(err as Error).message} (--postgres off measures SQLite only)`);
  }
}

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new database `name` on `server`, empty or (CREATE DATABASE … TEMPLATE) a copy of `template`. */
async function createDatabase(server: string, name: string, template?: string): Promise<BenchDatabase> {
  await admin(server, (client) => client.query(`create database ${name}${template ? ` template ${template}` : ''}`));
  const drop = () => admin(server, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {});
  return { url: databaseUrl(server, name), name, drop };
}

/**
 * A fresh database on `server` holding exactly the rows of `dataset`'s SQLite file: the same
 * generator, seed and anchor instant, written through Kysely (multi-row INSERTs in chunks).
 * Checked by comparing what the generator reports about the rows with the file's record.
 * `loadMs` covers creating, migrating, loading, syncing identities and analysing.
 */
export async function loadIntoPostgres(server: string, dataset: Dataset): Promise<BenchDatabase & { loadMs: number }> {
  const started = performance.now();
  const database = await createDatabase(server, benchDatabaseName(dataset.meta.scale, randomBytes(4).toString('hex')));
  try {
    const store = await openStore(database.url);
    try {
      const meta = await generateInto(store.db, dataset.meta.scale, dataset.meta.seed, Date.parse(dataset.meta.generatedAt));
      const comparable = (m: typeof meta) => JSON.stringify({ ...m, generationMs: 0 });
      if (comparable(meta) !== comparable(dataset.meta)) throw new Error(`the rows loaded into ${database.name} are not those of ${dataset.file}: was the generator changed without a GENERATOR_VERSION bump?`);
      // The rows came with their ids: generated ids must continue past them (the writes under load insert).
      await store.syncIds(store.db);
      // Planner statistics now, as autovacuum would gather them a minute later: otherwise the
      // first rounds measure plans made without any.
      await sql`analyze`.execute(store.db);
    } finally {
      await store.close();
    }
    return { ...database, loadMs: performance.now() - started };
  } catch (err) {
    await database.drop();
    throw err;
  }
}

/** A copy of `source` (the server copies the files, much faster than loading again); nothing may be connected to `source` meanwhile. */
export function copyDatabase(server: string, source: BenchDatabase): Promise<BenchDatabase> {
  return createDatabase(server, `${source.name}_${randomBytes(4).toString('hex')}`, source.name);
}

/**
 * forgetNewerMigrations (servers.ts) on PostgreSQL: deletes from the database at `url` the rows
 * of kysely's migration table (src/store/db.ts, kysely's default name) not named in `known`. Answers their names.
 */
export function forgetPostgresMigrations(url: string, known: string[]): Promise<string[]> {
  return admin(url, async (client) => {
    const { rows } = await client.query<{ name: string }>('delete from kysely_migration where name <> all($1::text[]) returning name', [known]);
    return rows.map((row) => row.name).sort();
  });
}
