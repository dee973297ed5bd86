import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { DatabaseConnection, Dialect, Driver, Kysely, QueryResult, RootOperationNode } from 'kysely';
import { tracing } from '../../tracing/tracing.js';
import { isPreparedQuery } from '../prepared.js';

/** How many prepared statements a store keeps by SQL text: the shapes built per run (migrations, the import), with room. */
export const STATEMENT_CACHE_SIZE = 1000;

/**
 * better-sqlite3's statements by SQL text, for queries that are not prepared queries:
 * preparing (parsing and planning the SQL) costs as much as running a short indexed query.
 * Parameters are bound at each run, so one statement serves every caller. The oldest entry
 * goes first when the cache is full.
 */
export function withStatementCache(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(text: string): SQLite.Statement {
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

/**
 * Kysely's SQLite dialect with a driver that keeps better-sqlite3's Statement of every
 * prepared query (store/prepared.ts) on the query itself: a request then runs the statement
 * it already has, with no SQL text to look up. Other queries (migrations, the import) find
 * theirs by SQL text in a bounded cache, as the oldest entry goes first.
 *
 * As Kysely's own driver: one connection, lent to one user at a time (a transaction holds
 * it from BEGIN to COMMIT, and nothing else runs on it meanwhile); better-sqlite3 runs a
 * statement to completion before it returns, so a kept statement is never busy.
 */
export function sqliteDialect(sqlite: SQLite.Database): Dialect & { cachedStatements(): number } {
  const connection = new SqliteConnection(sqlite);
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new SqliteDriver(sqlite, connection),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
    cachedStatements: () => connection.cachedStatements(),
  };
}

class SqliteConnection implements DatabaseConnection {
  readonly #prepared = new WeakMap<RootOperationNode, SQLite.Statement>();
  readonly #bySql: ReturnType<typeof withStatementCache>;
  #preparedCount = 0;

  constructor(private readonly sqlite: SQLite.Database) {
    this.#bySql = withStatementCache(sqlite);
  }

  cachedStatements(): number {
    return this.#bySql.cached() + this.#preparedCount;
  }

  #statement({ query, sql }: CompiledQuery): SQLite.Statement {
    const kept = this.#prepared.get(query);
    if (kept) return kept;
    if (!isPreparedQuery(query)) return this.#bySql.prepare(sql);
    const statement = this.sqlite.prepare(sql);
    this.#prepared.set(query, statement);
    this.#preparedCount++;
    return statement;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A span per statement while tracing is on (docs/decisions.md, "Traces").
    if (tracing) return tracing.statement('sqlite', compiled.sql, () => this.#run<R>(compiled));
    return this.#run<R>(compiled);
  }

  #run<R>(compiled: CompiledQuery): QueryResult<R> {
    const statement = this.#statement(compiled);
    if (statement.reader) return { rows: statement.all(compiled.parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(compiled.parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The SQLite store does not stream.');
  }
}

class SqliteDriver implements Driver {
  #busy = false;
  /** who waits for the connection, first come first served */
  readonly #waiting: Array<() => void> = [];

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly connection: SqliteConnection,
  ) {}

  async init(): Promise<void> {}

  /**
   * The connection, once its holder releases it. Released, it passes straight to the next in
   * line: under load, one release wakes one waiter, where every waiter polling a shared
   * promise would wake them all to find it taken again.
   */
  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#busy) {
      this.#busy = true;
      return Promise.resolve(this.connection);
    }
    return new Promise((resolve) => this.#waiting.push(() => resolve(this.connection)));
  }

  async releaseConnection(): Promise<void> {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
    if (this.sqlite.open) this.sqlite.close();
  }
}
