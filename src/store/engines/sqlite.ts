import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import type { Database } from '../schema.js';
import { logStatement } from '../statements.js';

/**
 * SQLite (better-sqlite3): one process, one connection, one writer at a time. What is
 * particular to it is here; the rest of the store does not know which engine it runs on.
 */

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

export interface SqliteEngine {
  db: Kysely<Database>;
  close(): Promise<void>;
  exclusive<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
}

/** Opens (creating when needed) the file, or an in-memory database when `path` is undefined. */
export function openSqlite(path: string | undefined): SqliteEngine {
  if (path) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path ?? ':memory:');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), log: logStatement });
  // busy_timeout first: the pragmas and migrations below may meet another process's lock.
  sqlite.pragma('busy_timeout = 5000');
  // WAL lets readers proceed while one writer writes; NORMAL is durable enough with WAL.
  if (path) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return {
    db,
    async close() {
      await db.destroy();
      if (sqlite.open) sqlite.close();
    },
    /**
     * BEGIN IMMEDIATE takes the file's write lock before anything is read, so two processes
     * opening a fresh file at once (server and import) take turns: the second sees what the
     * first wrote. Kysely's own transactions begin deferred, so this one is written out.
     */
    exclusive: (work) =>
      db.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        try {
          const result = await work(connection);
          await sql`commit`.execute(connection);
          return result;
        } catch (err) {
          if (sqlite.inTransaction) await sql`rollback`.execute(connection);
          throw err;
        }
      }),
  };
}
