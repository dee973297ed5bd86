import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder, RootOperationNode } from 'kysely';
import type { Database } from './schema.js';

/**
 * Queries written once in Kysely, typed as ever, and compiled once per engine: a request only
 * binds new values to the same SQL (docs/decisions.md, "Queries are built once").
 * `prepared((db, p) => db.selectFrom('tags').selectAll().where('id', '=', p.id))` builds the
 * query with a stand-in for each `p.name` and finds where each went among the SQL's
 * parameters; the engines keep the database's prepared statement for each.
 */

/** A named value of a prepared query, standing in for the request's while the query is built. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** The stand-ins a build function receives: each is typed as the value it stands for. */
export type Placeholders<P> = { readonly [K in keyof P]: P[K] };

const placeholders = new Proxy(
  {},
  {
    get: (_target, name) => {
      if (typeof name !== 'string') throw new TypeError('A placeholder is named by a string');
      return new Placeholder(name);
    },
  },
);

/** One compiled form of a prepared query: its SQL, and where each parameter's value comes from. */
interface Compiled {
  query: RootOperationNode;
  sql: string;
  /** per SQL parameter: the name of the value it takes, or undefined for a constant */
  names: (string | undefined)[];
  /** per SQL parameter: the constant written into the query, where it is one */
  constants: unknown[];
}

/** The compiled queries the engines keep their own statements for (see isPreparedQuery). */
const preparedRoots = new WeakSet<RootOperationNode>();

/** True for the tree of a prepared query: the same object on every run of that query. */
export function isPreparedQuery(query: RootOperationNode): boolean {
  return preparedRoots.has(query);
}

export interface PreparedQuery<P, O, DB = Database> {
  /** every row */
  execute(db: Kysely<DB>, params: P): Promise<O[]>;
  /** the first row, if any */
  takeFirst(db: Kysely<DB>, params: P): Promise<O | undefined>;
  /** the driver's whole result (affected rows of a write) */
  run(db: Kysely<DB>, params: P): Promise<QueryResult<O>>;
  /** the SQL and parameters a run with these values sends (to explain its plan) */
  compile(db: Kysely<DB>, params: P): CompiledQuery<O>;
}

/**
 * A query built by `build` once per engine, then run with new values. `build` must not
 * depend on anything but its placeholders (no value of a request may be read there): what
 * varies in shape is a separate prepared query per variant (see `preparedVariants`).
 */
export function prepared<P extends object, O, DB = Database>(
  build: (db: Kysely<DB>, p: Placeholders<P>) => Compilable<O> | RawBuilder<O>,
): PreparedQuery<P, O, DB> {
  // Per query compiler: SQLite and PostgreSQL write different SQL. A transaction's Kysely
  // shares its database's executor adapter, so it finds the same compiled query.
  const byEngine = new WeakMap<object, Compiled>();

  const compiledFor = (db: Kysely<DB>): Compiled => {
    const key = db.getExecutor().adapter;
    let compiled = byEngine.get(key);
    if (compiled) return compiled;
    const built = build(db, placeholders as Placeholders<P>);
    // A raw `sql` query compiles with the database it is for; a query builder knows it already.
    const { query, sql, parameters } = 'isRawBuilder' in built ? built.compile(db) : built.compile();
    compiled = {
      query,
      sql,
      names: parameters.map((value) => (value instanceof Placeholder ? value.name : undefined)),
      constants: parameters.map((value) => (value instanceof Placeholder ? undefined : value)),
    };
    preparedRoots.add(query);
    byEngine.set(key, compiled);
    return compiled;
  };

  const compile = (db: Kysely<DB>, params: P): CompiledQuery<O> => {
    const { query, sql, names, constants } = compiledFor(db);
    const values = params as Record<string, unknown>;
    const parameters = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      parameters[i] = name === undefined ? constants[i] : values[name];
    }
    return { query, sql, parameters, queryId: QUERY_ID };
  };

  const run = (db: Kysely<DB>, params: P): Promise<QueryResult<O>> => db.executeQuery(compile(db, params));

  return {
    run,
    compile,
    execute: async (db, params) => (await run(db, params)).rows,
    takeFirst: async (db, params) => (await run(db, params)).rows[0],
  };
}

/** Prepared queries run no plugin that reads the query id; one id serves them all. */
const QUERY_ID = { queryId: 'prepared' };

/**
 * Prepared queries whose shape varies with a request's choices (which lists to read, which
 * order, which filters): one prepared query per variant, found again by the variant's short
 * key (never by building SQL to compare), and at most `max` of them kept (the oldest goes
 * first; a variant built again costs one compile).
 */
export function preparedVariants<V, P extends object, O, DB = Database>(
  keyOf: (variant: V) => string,
  build: (variant: V) => PreparedQuery<P, O, DB>,
  max = 256,
): (variant: V) => PreparedQuery<P, O, DB> {
  const variants = new Map<string, PreparedQuery<P, O, DB>>();
  return (variant) => {
    const key = keyOf(variant);
    let query = variants.get(key);
    if (query) return query;
    query = build(variant);
    if (variants.size >= max) variants.delete(variants.keys().next().value!);
    variants.set(key, query);
    return query;
  };
}

/** Row → API value helpers, shared by every area's row → answer mapping. */

/** INTEGER 0/1 → boolean. */
export const bool = (value: number | boolean | null | undefined): boolean => value === 1 || value === true;

/** INTEGER 0/1 or null → boolean or absent. */
export const optBool = (value: number | boolean | null | undefined): boolean | undefined =>
  value === null || value === undefined ? undefined : bool(value);

/**
 * SQL null as absent. The API omits null values, and its serializers (fast-json-stringify for
 * JSON, the CSV writer) skip absent ones: a mapper that writes `opt(column)` builds its answer
 * in one pass, with no `compact` over it afterwards.
 */
export const opt = <V>(value: V | null): V | undefined => (value === null ? undefined : value);

/** An answer of type T as a mapper builds it: no field is null (opt makes a SQL null absent). */
export type Answer<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * A stored code as the contract's integer enum it carries (RebateCodeType, BookingStatusId,
 * …): each such column has a CHECK constraint holding it to the enum's values, so the
 * store's `number` is narrowed here, once, rather than checked again per row.
 */
export const code = <E extends number | null | undefined>(value: number | null): E => value as E;
