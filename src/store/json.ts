import * as postgres from 'kysely/helpers/postgres';
import * as sqlite from 'kysely/helpers/sqlite';
import { sql, type Kysely, type RawBuilder, type Simplify } from 'kysely';
import { isPostgres } from './statements.js';

/**
 * A row's lists and parts as JSON columns of the row's own query: one round trip, not one per
 * list (docs/decisions.md, "Engines"). Kysely's helper of the engine is picked by the
 * executor's adapter; SQLite's json_object must name every key, so subqueries select their
 * columns explicitly. `Json<T>` marks such a column and `parseJson` reads either engine's.
 */
declare const json: unique symbol;
export interface Json<T> {
  readonly [json]: T;
}

/** a select query (SQLite's helper takes only those; PostgreSQL's any expression) */
type Subquery<O> = Parameters<typeof sqlite.jsonArrayFrom<O>>[0];

export interface JsonHelpers {
  /**
   * the subquery's rows as a JSON array (empty when none), in the subquery's order; with
   * `read` false an empty array without running the subquery
   */
  array<O>(subquery: Subquery<O>, read?: boolean): RawBuilder<Json<Simplify<O>[]>>;
  /** the subquery's first row as a JSON object, null when none */
  object<O>(subquery: Subquery<O>): RawBuilder<Json<Simplify<O> | null>>;
}

export function jsonHelpers(db: Kysely<any>): JsonHelpers {
  const helpers = isPostgres(db) ? postgres : sqlite;
  return {
    // '[]' is text on both engines, which parseJson reads like the JSON it spells
    array: (subquery, read = true) => (read ? helpers.jsonArrayFrom(subquery) : sql`'[]'`).$castTo(),
    object: (subquery) => helpers.jsonObjectFrom(subquery).$castTo(),
  };
}

/** A JSON column's value: parsed already (PostgreSQL) or JSON text (SQLite). */
export function parseJson<T>(value: Json<T>): T {
  const raw: unknown = value;
  return (typeof raw === 'string' ? JSON.parse(raw) : raw) as T;
}

/**
 * Whether the JSON array of strings in `column` holds `value` (exact, case-sensitive):
 * SQLite walks it with json_each, PostgreSQL reads it as jsonb (`jsonb_exists` is the
 * function behind its `?` operator, which would clash with bind markers).
 */
export function jsonTextArrayContains(db: Kysely<any>, column: string, value: string): RawBuilder<boolean> {
  return isPostgres(db)
    ? sql<boolean>`jsonb_exists(${sql.ref(column)}::jsonb, ${value})`
    : sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) where json_each.value = ${value})`;
}

/**
 * A list as one value of a prepared query (store/prepared.ts): the caller passes
 * `JSON.stringify(list)`, and this is the SQL of a one-column set (`value`) of its items as
 * `type`, for `x in (…)` or `insert … select … from (…) as list`. One statement then serves a
 * list of any length, where Kysely's `in` writes one parameter per item (a new SQL text, a new
 * statement, per length). SQLite reads it with json_each, PostgreSQL with
 * json_array_elements_text.
 */
export function jsonList(db: Kysely<any>, json: string, type: 'integer' | 'text'): RawBuilder<unknown> {
  return isPostgres(db)
    ? sql`select cast(value as ${sql.raw(type)}) as value from json_array_elements_text(cast(${json} as json)) as value`
    : sql`select value from json_each(${json})`;
}
