import type { Insertable, Kysely } from 'kysely';
import { displayName, invalid, label, type FieldError } from '../domain/refusals.js';
import type { Bool, Database, TableName } from '../store/schema.js';
import type { Schema } from './schema.js';

/**
 * One declaration per top-level collection of the import file: the schema of its items,
 * the kind of row their `Id` names, the further keys they claim and the rows they refer
 * to (which must exist in the file or the store, in the same company), the item rules
 * beyond the schema, and how the items become rows.
 */

/** A kind of row that keys claim and references point to, and where stored ones live. */
export interface Entity {
  /** How messages name a row: `service 10`. */
  label: string;
  table: TableName;
  /** The column keys are compared with; `id` unless said. */
  column?: string;
  /** Rows belong to a company (the table has company_id), so references stay within it. */
  owned: boolean;
  /** Keys unique within a company only, claimed as `company/value`; `what` names the key in messages. */
  perCompany?: { what: string; note?: string };
}

export interface KeyClaim {
  entity: Entity;
  key: string | number;
  /** Field path inside the item, for messages. */
  field: string;
}

export interface Reference extends KeyClaim {
  /** The company the referenced row must belong to; null for global reference data. */
  company: string | null;
}

/** The valid items of the file, by collection. */
export interface FileItems {
  of<T>(collection: Collection<T, unknown>): T[];
}

export interface WriteContext {
  /** One timestamp for every default in this import. */
  now: string;
  newWebhookSecret(): string;
}

export interface Collection<T, C = undefined> {
  schema: Schema<T>;
  /** What the item's `Id` names, when anything can refer to it. */
  entity?: Entity;
  /** Keys besides `Id`: ids of nested rows, signs unique per company. */
  keys?(item: T): KeyClaim[];
  refs?(item: T): Reference[];
  /** Facts the item rules need from other collections or the store, gathered once. */
  context?(db: Kysely<Database>, items: T[], file: FileItems): Promise<C>;
  check?(item: T, context: C): FieldError[];
  write(db: Kysely<Database>, items: T[], ctx: WriteContext): Promise<void>;
}

/** Any collection, as the import runs them; its methods take the items its schema accepted. */
export type AnyCollection = Collection<unknown, unknown>;

/** Declares a collection with its item type taken from the schema. */
export const collection = <T, C = undefined>(spec: Collection<T, C>): Collection<T, C> => spec;

export const entity = (spec: Entity): Entity => spec;

/** References to `target` for each id of a list field (nothing when the list is absent). */
export function refsTo(target: Entity, keys: readonly (string | number)[] | null, field: string, company: string | null): Reference[] {
  return (keys ?? []).map((key, index) => ({ entity: target, key, field: `${field}[${index}]`, company }));
}

/** A reference from a single nullable field. */
export function refTo(target: Entity, key: string | number | null, field: string, company: string | null): Reference[] {
  return key === null ? [] : [{ entity: target, key, field, company }];
}

/** One link row per id in each item's list. */
export function linkRows<T, K, R>(items: T[], list: (item: T) => readonly K[] | null, row: (item: T, key: K) => R): R[] {
  return items.flatMap((item) => (list(item) ?? []).map((key) => row(item, key)));
}

/** A boolean as the store keeps it, `fallback` when the file left it out. */
export function flag<F extends Bool | null>(value: boolean | null, fallback: F): Bool | F {
  return value === null ? fallback : value ? 1 : 0;
}

/** `to` must not be before `from` (both ISO UTC, so text order is time order). */
export function notBefore<F extends string>(item: Record<F, string>, from: F, to: F): FieldError[] {
  if (item[to] >= item[from]) return [];
  return [invalid('GreaterThanOrEqual', to, (name) => `${name} must not be before ${label(from)}.`)];
}

type Upper<C extends string> = C extends Lowercase<C> ? false : true;
/** An underscore before a capital that follows a small letter or digit, or that ends a run of capitals. */
type Gap<Prev extends string, C extends string, Rest extends string> = Prev extends ''
  ? ''
  : Upper<C> extends false
    ? ''
    : Upper<Prev> extends false
      ? '_'
      : Rest extends `${infer Next}${string}`
        ? Upper<Next> extends true ? '' : '_'
        : '';
/** `ImageUrl` → `image_url`, `SMSNotification` → `sms_notification`: a field's column, as `column` names it. */
export type Column<F extends string, Prev extends string = ''> = F extends `${infer C}${infer Rest}`
  ? `${Gap<Prev, C, Rest>}${Lowercase<C>}${Column<Rest, C>}`
  : '';

const columnNames = new Map<string, string>();
/** The store names the column of a document field by the field's words (schema.ts). */
function column(field: string): string {
  let name = columnNames.get(field);
  if (name === undefined) columnNames.set(field, (name = displayName(field).replaceAll(' ', '_').toLowerCase()));
  return name;
}

type Columns<T, F extends keyof T & string, P extends string> = { [K in F as `${P}${Column<K>}`]: T[K] };

/** The item's `fields` as the columns named after them, with an optional prefix. */
export function columns<T, F extends keyof T & string, P extends string = ''>(item: T, fields: readonly F[], prefix?: P): Columns<T, F, P> {
  // Column<K> spells at the type level the same words `column` splits a field into.
  return Object.fromEntries(fields.map((field) => [`${prefix ?? ''}${column(field)}`, item[field]])) as Columns<T, F, P>;
}

/**
 * Inserts rows in chunks small enough for SQLite's bound-parameter limit and the
 * statement size, whatever the number of rows.
 */
export async function insertRows<T extends TableName>(db: Kysely<Database>, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  const chunk = 200;
  for (let start = 0; start < rows.length; start += chunk) {
    // The generic table parameter is beyond what Kysely's types can follow; the row type
    // is already tied to the table by this function's signature.
    await db
      .insertInto(table)
      .values(rows.slice(start, start + chunk) as any)
      .execute();
  }
}

/**
 * Inserts one row whose children need its id: the given id, or the one the database
 * generates when the file left it out.
 */
export async function insertWithId<T extends TableName>(
  db: Kysely<Database>,
  table: T,
  row: Insertable<Database[T]>,
  id: number | null,
): Promise<number> {
  const values = id === null ? row : { ...row, id };
  const inserted = await db
    .insertInto(table)
    .values(values as any)
    .returning('id' as any)
    .executeTakeFirstOrThrow();
  return (inserted as { id: number }).id;
}
