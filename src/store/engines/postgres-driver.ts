import { CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { DatabaseConnection, Dialect, Driver, Kysely, QueryResult, RootOperationNode, TransactionSettings } from 'kysely';
import type pg from 'pg';
import { tracing } from '../../tracing/tracing.js';
import { isPreparedQuery } from '../prepared.js';

/**
 * Kysely's PostgreSQL dialect, whose driver runs each prepared query (store/prepared.ts) as a
 * named statement, parsed and planned once per connection; `named: false` sends every query
 * unnamed, for poolers that share sessions (PgBouncer in transaction mode). A migration that
 * changes a table's columns makes a plan that read it whole fail (0A000, "cached plan must not
 * change result type"): the connection is dropped when released, and a statement outside a
 * transaction is run again at once, unnamed.
 */
export function postgresDialect(pool: pg.Pool, options: { named: boolean }): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PostgresDriver(pool, options.named),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
  };
}

/** Statement names, one per prepared query and engine, the same on every connection. */
const names = new WeakMap<RootOperationNode, string>();
let nextName = 1;

function nameOf(query: RootOperationNode): string | undefined {
  if (!isPreparedQuery(query)) return undefined;
  let name = names.get(query);
  if (name === undefined) {
    name = `booking_${nextName++}`;
    names.set(query, name);
  }
  return name;
}

const changedResultType = (err: unknown) =>
  (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PostgresConnection implements DatabaseConnection {
  inTransaction = false;
  /** its prepared statements may be stale: given up when released */
  stale = false;

  constructor(
    readonly client: pg.PoolClient,
    private readonly named: boolean,
  ) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A span per statement while tracing is on (docs/decisions.md, "Traces").
    if (tracing) return tracing.statement('postgresql', compiled.sql, () => this.#run<R>(compiled));
    return this.#run<R>(compiled);
  }

  async #run<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const name = this.named ? nameOf(compiled.query) : undefined;
    const values = compiled.parameters as unknown[];
    let result: pg.QueryResult;
    try {
      result = await this.client.query(name ? { name, text: compiled.sql, values } : { text: compiled.sql, values });
    } catch (err) {
      if (!name || !changedResultType(err)) throw err;
      this.stale = true;
      if (this.inTransaction) throw err;
      result = await this.client.query({ text: compiled.sql, values });
    }
    return {
      numAffectedRows: WRITES.has(result.command) ? BigInt(result.rowCount ?? 0) : undefined,
      rows: (result.rows ?? []) as R[],
    };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The PostgreSQL store does not stream.');
  }
}

class PostgresDriver implements Driver {
  readonly #connections = new WeakMap<pg.PoolClient, PostgresConnection>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly named: boolean,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new PostgresConnection(client, this.named);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const access = settings.accessMode ? ` ${settings.accessMode}` : '';
    await connection.executeQuery(CompiledQuery.raw(isolation || access ? `start transaction${isolation}${access}` : 'begin'));
    (connection as PostgresConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).inTransaction = false;
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as PostgresConnection).inTransaction = false;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { client, stale } = connection as PostgresConnection;
    // A stale connection is closed rather than pooled: its replacement starts with no statements.
    if (stale) this.#connections.delete(client);
    client.release(stale ? true : undefined);
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}
