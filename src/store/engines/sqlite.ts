import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import { compileCounter, logStatement } from '../statements.js';
import { sqliteDialect } from './sqlite-driver.js';

/**
 * SQLite (better-sqlite3): one process, one connection, one writer at a time. What is
 * particular to it is here; the rest of the store does not know which engine it runs on.
 */

export interface SqliteEngine {
  db: Kysely<Database>;
  close(): Promise<void>;
  exclusive<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** The migrations' lock: the same write lock, held for the migrations in one transaction. */
  migrateExclusively<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  probe(): Promise<void>;
}

/** Opens (creating when needed) the file, or an in-memory database when `path` is undefined. */
export function openSqlite(path: string | undefined): SqliteEngine {
  if (path) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path ?? ':memory:');
  const db = new Kysely<Database>({ dialect: sqliteDialect(sqlite), log: logStatement, plugins: [compileCounter] });
  // busy_timeout first: the pragmas and migrations below may meet another process's lock.
  sqlite.pragma('busy_timeout = 5000');
  // WAL lets readers proceed while one writer writes; NORMAL is durable enough with WAL.
  if (path) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const ping = sqlite.prepare('select 1');
  /**
   * BEGIN IMMEDIATE takes the file's write lock before anything is read, so two processes
   * opening a fresh file at once (server and import) take turns: the second sees what the
   * first wrote. Kysely's own transactions begin deferred, so this one is written out.
   */
  const exclusive: SqliteEngine['exclusive'] = (work) =>
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
    });
  return {
    db,
    async close() {
      await db.destroy();
      if (sqlite.open) sqlite.close();
    },
    // On the handle itself, not through Kysely's one connection, which queues its users: a
    // read of nothing is safe beside whatever transaction holds that connection.
    probe: async () => {
      ping.get();
    },
    exclusive,
    migrateExclusively: exclusive,
  };
}
