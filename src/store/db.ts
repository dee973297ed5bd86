import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import { migrationProvider, migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export interface Store {
  db: Kysely<Database>;
  close(): Promise<void>;
}

/** The database holds migrations this code does not know: it was written by a newer version. */
export class StoreVersionError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `The database was migrated by a newer version of this service: unknown migration(s) ` +
        `${unknownMigrations.map((name) => `"${name}"`).join(', ')}. ` +
        `Upgrade the service or use another DATABASE_URL.`,
    );
    this.name = 'StoreVersionError';
  }
}

/** DATABASE_URL names an engine or form this build cannot open. */
export class StoreConfigError extends Error {
  override name = 'StoreConfigError';
}

export type DatabaseLocation = { kind: 'memory' } | { kind: 'file'; path: string };

/**
 * `file::memory:` → in-memory; `file:./rel/path.sqlite` (relative to the working
 * directory), `file:/abs/path` and `file:///abs/path` → that file.
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new StoreConfigError(
      'DATABASE_URL names PostgreSQL, but the PostgreSQL engine is not yet available; ' +
        'use a file: URL (e.g. file:./data/booking.sqlite or file::memory:).',
    );
  }
  if (!databaseUrl.startsWith('file:')) {
    throw new StoreConfigError(`DATABASE_URL must start with file: (got "${databaseUrl}").`);
  }
  if (databaseUrl === 'file::memory:') return { kind: 'memory' };
  const path = databaseUrl.startsWith('file://') ? fileURLToPath(databaseUrl) : databaseUrl.slice('file:'.length);
  if (path === '') throw new StoreConfigError('DATABASE_URL file: names no path.');
  return { kind: 'file', path: resolve(path) };
}

/** Opens (creating when needed) the database named by `databaseUrl` and migrates it to the latest schema. */
export async function openStore(databaseUrl: string): Promise<Store> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'file') mkdirSync(dirname(location.path), { recursive: true });
  const sqlite = new SQLite(location.kind === 'memory' ? ':memory:' : location.path);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  try {
    // busy_timeout first: the pragmas and migrations below may meet another process's lock.
    sqlite.pragma('busy_timeout = 5000');
    // WAL lets readers proceed while one writer writes; NORMAL is durable enough with WAL.
    if (location.kind === 'file') sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    await migrate(db, sqlite);
  } catch (err) {
    await db.destroy();
    if (sqlite.open) sqlite.close();
    throw err;
  }
  return {
    db,
    async close() {
      await db.destroy();
      if (sqlite.open) sqlite.close();
    },
  };
}

/** How many prepared statements a store keeps: every query shape the API runs, with room. */
export const STATEMENT_CACHE_SIZE = 1000;

/**
 * better-sqlite3 as Kysely sees it, with the statements it prepares kept for reuse. Kysely
 * prepares every query it runs, and preparing (parsing and planning the SQL) cost as much
 * as running the short indexed queries of this API (5–15% of a request in the profiles of
 * bench/results.md). The key is the SQL text; parameters are bound at each run, so one
 * statement serves every caller. better-sqlite3 runs a statement to completion before it
 * returns (Kysely's streaming, the only way to leave one open, is not used), so a cached
 * statement is never busy when it is handed out again. The oldest entry goes first when
 * the cache is full (query shapes vary only with the length of an `in (…)` list).
 */
export function withStatementCache(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase & { cached(): number } {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) return statement;
      statement = sqlite.prepare(text);
      if (statements.size >= size) statements.delete(statements.keys().next().value!);
      statements.set(text, statement);
      return statement;
    },
    cached: () => statements.size,
  };
}

/** True when the store holds no company (a fresh store, e.g. before demo data is loaded). */
export async function isEmpty(store: Store): Promise<boolean> {
  const row = await store.db.selectFrom('companies').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/**
 * Runs the pending migrations. Kysely runs SQLite migrations outside a transaction, so we
 * wrap the whole run in BEGIN IMMEDIATE ourselves: a failed migration leaves nothing half
 * done, and two processes opening a fresh file at once (server and import) take turns.
 */
async function migrate(db: Kysely<Database>, sqlite: SQLite.Database): Promise<void> {
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    await refuseNewerDatabase(db);
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    sqlite.exec('COMMIT');
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

/** A database migrated by newer code must not be run (and possibly damaged) by older code. */
async function refuseNewerDatabase(db: Kysely<Database>): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === 'kysely_migration')) return;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  const unknown = rows.map((row) => row.name).filter((name) => !(name in migrations));
  if (unknown.length > 0) throw new StoreVersionError(unknown);
}
