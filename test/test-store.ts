import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../src/store/db.js';
import { migrations } from '../src/store/migrations/index.js';

/**
 * The store a test runs on. Without TEST_DATABASE_URL: a fresh in-memory SQLite store.
 * With it (a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:55432/postgres): a fresh
 * database per test, copied from a migrated template (CREATE DATABASE … TEMPLATE takes a few
 * milliseconds where migrating takes a second) and dropped when the test ends.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const engine: 'sqlite' | 'postgres' = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** The template's name changes with the migrations, so a stale template is never copied. */
const TEMPLATE = `booking_test_${Object.keys(migrations).length}_${Object.keys(migrations).at(-1)!.replace(/\W/g, '_')}`.toLowerCase();
const TEMPLATE_LOCK = 748_213_002;

const urlFor = (server: string, database: string) => {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
};

/** One connection to the server's maintenance database, for CREATE and DROP DATABASE. */
async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let template: Promise<void> | undefined;

/** Creates the migrated template once per server (test processes run in parallel: the first makes it). */
function ensureTemplate(): Promise<void> {
  template ??= admin(async (client) => {
    await client.query(`select pg_advisory_lock(${TEMPLATE_LOCK})`);
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [TEMPLATE]);
      if (rowCount) return;
      const building = `${TEMPLATE}_building`;
      await client.query(`drop database if exists ${building}`);
      await client.query(`create database ${building}`);
      const store = await openStore(urlFor(TEST_DATABASE_URL!, building));
      await store.close();
      await client.query(`alter database ${building} rename to ${TEMPLATE}`);
    } finally {
      await client.query(`select pg_advisory_unlock(${TEMPLATE_LOCK})`);
    }
  });
  return template;
}

export interface TestDatabase {
  /** the DATABASE_URL of the test's own database */
  url: string;
  /** drops the database (PostgreSQL) once every store on it is closed */
  drop(): Promise<void>;
}

/** A fresh, migrated, empty database for one test: an SQLite file under `dir`, or a PostgreSQL copy of the template. */
export async function freshDatabase(sqliteFile = 'file::memory:'): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) return { url: sqliteFile, drop: async () => {} };
  await ensureTemplate();
  const name = `booking_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`create database ${name} template ${TEMPLATE}`));
  return {
    url: urlFor(TEST_DATABASE_URL, name),
    drop: () => admin((client) => dropWhenClosed(client, name)),
  };
}

/** A fresh store for one test, closed (and its database dropped) when the test ends. */
export async function testStore(t: { teardown(fn: () => unknown): void }): Promise<Store> {
  const database = await freshDatabase();
  const store = await openStore(database.url);
  t.teardown(async () => {
    await store.close();
    await database.drop();
  });
  return store;
}

/**
 * Drops a test's database once its connections are gone. node-postgres's pool.end()
 * resolves as soon as it has asked its idle connections to close, before their sockets have
 * closed: a `drop … with (force)` at once terminates those backends, and the client that was
 * still closing then raises an error no one listens to. So wait (briefly) for them to go;
 * `force` remains for a test that left a connection open.
 */
async function dropWhenClosed(client: pg.Client, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
    if (rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await client.query(`drop database if exists ${name} with (force)`);
}

