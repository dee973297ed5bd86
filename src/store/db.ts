import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { openPostgres, syncIdentities } from './engines/postgres.js';
import { openSqlite } from './engines/sqlite.js';
import type { Database } from './schema.js';
import { beatNode, migrate, type SchemaState } from './versions.js';

export { StoreVersionError, type SchemaState } from './versions.js';

export { STATEMENT_CACHE_SIZE, withStatementCache } from './engines/sqlite-driver.js';

/**
 * The store: the database as Kysely reaches it, on SQLite or PostgreSQL. The repositories
 * speak Kysely only; the few things the engines do differently are the methods below.
 */
export interface Store {
  db: Kysely<Database>;
  close(): Promise<void>;
  /**
   * Runs `work` in one transaction that no other process's exclusive transaction overlaps
   * (setup work such as loading the demo data into an empty store, whoever starts first).
   */
  exclusive<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Runs `work` under the lock every migration run takes, on any node (versions.ts's migrate). */
  migrateExclusively<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** What opening it found and did (empty when it was opened without migrating) */
  schema: SchemaState;
  /** After rows were written with explicit ids: generated ids continue past them. */
  syncIds(db: Kysely<Database>): Promise<void>;
  /**
   * Resolves when the database answers, rejects when it does not. The probes' check
   * (/health, /ready): it never waits behind requests for a connection.
   */
  probe(): Promise<void>;
}

/** DATABASE_URL names an engine or form this build cannot open. */
export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

export type DatabaseLocation = { kind: 'memory' } | { kind: 'file'; path: string } | { kind: 'postgres'; url: string };

/**
 * `file::memory:` → in-memory SQLite; `file:./rel/path.sqlite` (relative to the working
 * directory), `file:/abs/path` and `file:///abs/path` → that SQLite file;
 * `postgres://` or `postgresql://` → that PostgreSQL database.
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return { kind: 'postgres', url: databaseUrl };
  if (!databaseUrl.startsWith('file:')) {
    throw new StoreConfigError(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${databaseUrl}").`);
  }
  if (databaseUrl === 'file::memory:') return { kind: 'memory' };
  const path = databaseUrl.startsWith('file://') ? fileURLToPath(databaseUrl) : databaseUrl.slice('file:'.length);
  if (path === '') throw new StoreConfigError('DATABASE_URL file: names no path.');
  return { kind: 'file', path: resolve(path) };
}

export interface OpenOptions {
  /** false: only open it (the migrate script and tests that migrate by hand) */
  migrate?: boolean;
  /** apply contract migrations too (`npm run migrate -- --contract`), not only expand ones */
  contract?: boolean;
  /** PostgreSQL: run prepared queries as named statements (false for PgBouncer in transaction mode) */
  preparedStatements?: boolean;
  /**
   * A serving node: recorded in `store_nodes` with its version under the lock it migrates in,
   * beating until the store closes. `onError` hears a heartbeat that failed.
   */
  node?: { onError(err: unknown): void };
}

/** Opens the database named by `databaseUrl` (creating an SQLite file when needed) and migrates it. */
export async function openStore(databaseUrl: string, options: OpenOptions = {}): Promise<Store> {
  const location = parseDatabaseUrl(databaseUrl);
  const engine =
    location.kind === 'postgres'
      ? { ...openPostgres(location.url, options), syncIds: syncIdentities }
      : { ...openSqlite(location.kind === 'file' ? location.path : undefined), syncIds: async () => {} };
  const store: Store = { ...engine, schema: { applied: [], newer: [], waiting: [] } };
  if (options.migrate === false) return store;
  try {
    store.schema = await engine.migrateExclusively((db) => migrate(db, { contract: options.contract, register: options.node !== undefined }));
  } catch (err) {
    await store.close();
    throw err;
  }
  if (options.node && store.schema.node) {
    const node = beatNode(store.db, store.schema.node, options.node.onError);
    store.close = async () => {
      await node.stop().catch(options.node!.onError);
      await engine.close();
    };
  }
  return store;
}

/** True when the store holds no company (a fresh store, e.g. before demo data is loaded). */
export async function isEmpty(store: { db: Kysely<Database> }): Promise<boolean> {
  const row = await store.db.selectFrom('companies').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}
