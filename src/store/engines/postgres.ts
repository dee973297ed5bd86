import { Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../schema.js';
import { compileCounter, logStatement } from '../statements.js';
import { postgresDialect } from './postgres-driver.js';

/**
 * PostgreSQL (node-postgres): any number of server processes on one database. What is
 * particular to it is here; the rest of the store does not know which engine it runs on.
 */

/** Connections each process keeps: a few per core serve a short-query API; more only queue in the server. */
export const POOL_SIZE = 10;

/** The key of the advisory lock that serialises setup work (migrations, demo data) across processes. */
const SETUP_LOCK = 748_213_001;

// int8 (count(*), sums of bigint columns) and numeric arrive as text by default, because
// they can exceed 2^53. Every such value of this API fits in a double, and the SQLite engine
// answers numbers: read them as numbers so both engines answer the same.
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Each PostgreSQL store's pool, by its Kysely instance, for poolUse. */
const pools = new WeakMap<Kysely<any>, pg.Pool>();

/** The connections of the pool behind `db` (the metrics report them); undefined when `db` is no PostgreSQL store's. */
export function poolUse(db: Kysely<any>): { max: number; inUse: number; idle: number; waiting: number } | undefined {
  const pool = pools.get(db);
  if (!pool) return undefined;
  return { max: POOL_SIZE, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

export interface PostgresEngine {
  db: Kysely<Database>;
  close(): Promise<void>;
  exclusive<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  migrateExclusively<T>(work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  probe(): Promise<void>;
}

/** How long the probes' check waits to connect and for its answer. */
const PROBE_TIMEOUT_MS = 2000;

/** `preparedStatements: false` sends every query unnamed (PgBouncer in transaction mode). */
export function openPostgres(url: string, options: { preparedStatements?: boolean } = {}): PostgresEngine {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, types });
  // An idle connection the server closes (a restart, a failover) must not crash the process;
  // the pool replaces it on the next query.
  pool.on('error', () => {});
  const dialect = postgresDialect(pool, { named: options.preparedStatements ?? true });
  const db = new Kysely<Database>({ dialect, log: logStatement, plugins: [compileCounter] });
  pools.set(db, pool);
  // The probes' own connection, so that a busy pool never delays them.
  const probes = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  probes.on('error', () => {});
  return {
    db,
    close: async () => {
      await db.destroy();
      if (!probes.ended) await probes.end();
    },
    probe: async () => {
      await probes.query('select 1');
    },
    /** One transaction that no other process's exclusive transaction overlaps. */
    exclusive: (work) =>
      db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${sql.lit(SETUP_LOCK)})`.execute(trx);
        return work(trx);
      }),
    /**
     * Migrations run on one connection holding the setup lock for the session (Kysely's
     * migrator opens its own transaction, so the lock cannot be a transaction's): two nodes
     * starting on an empty database take turns, and the second finds nothing to do.
     */
    migrateExclusively: (work) =>
      db.connection().execute(async (connection) => {
        await sql`select pg_advisory_lock(${sql.lit(SETUP_LOCK)})`.execute(connection);
        try {
          return await work(connection);
        } finally {
          await sql`select pg_advisory_unlock(${sql.lit(SETUP_LOCK)})`.execute(connection);
        }
      }),
  };
}

/**
 * Identity columns keep their own counter, which explicit ids (an import keeps the file's
 * ids) do not move; the next generated id would then clash with an imported one. This sets
 * every identity sequence past the largest id its table holds.
 */
export async function syncIdentities(db: Kysely<Database>): Promise<void> {
  await sql`
    do $$
    declare t record;
    begin
      for t in
        select c.table_name, c.column_name, pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as seq
        from information_schema.columns c
        where c.table_schema = current_schema() and c.is_identity = 'YES'
      loop
        execute format('select setval(%L, coalesce((select max(%I) from %I), 0) + 1, false)', t.seq, t.column_name, t.table_name);
      end loop;
    end $$`.execute(db);
}
