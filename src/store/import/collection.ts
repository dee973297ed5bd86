import type { Insertable, Kysely } from 'kysely';
import type { Bool, Database, TableName } from '../schema.js';
import type { Infer, Issue, Path, Shape } from './fields.js';

/**
 * What one top-level collection of the import file declares: the shape of its items, the
 * keys its items take (so duplicates and clashes with stored rows are found), the rows
 * they refer to (which must exist in the file or the store, in the same company), item
 * rules beyond field types, and how the items become rows.
 */

/** Kinds of rows that can be claimed by a key or referred to. */
export type EntityKind =
  | 'company' | 'category' | 'billingMethod' | 'messageType' | 'service' | 'customer' | 'tag'
  | 'resource' | 'timeException' | 'booking' | 'resourceType' | 'customField'
  | 'customFieldValue' | 'article' | 'rebateCode' | 'rebateCodeSign' | 'rebateCodeTransaction'
  | 'paymentLog' | 'printout' | 'messageTemplate' | 'webhookEndpoint';

export interface KeyClaim {
  kind: EntityKind;
  key: string | number;
  /** Field path inside the item, for messages. */
  path: Path;
}

export interface Reference {
  kind: EntityKind;
  key: string | number;
  path: Path;
  /** The company the referenced row must belong to; null for global reference data. */
  company: string | null;
}

/** Stored or file facts that item rules need. */
export interface CheckContext {
  messageType(id: number): { maxCharacters: number; sendMethodId: number } | undefined;
}

export interface WriteContext {
  /** One timestamp for every default in this import. */
  now: string;
  newWebhookSecret(): string;
}

export interface Collection<S extends Shape = Shape> {
  shape: S;
  keys?(item: Infer<S>): KeyClaim[];
  refs?(item: Infer<S>): Reference[];
  check?(item: Infer<S>, ctx: CheckContext): Issue[];
  write(db: Kysely<Database>, items: Infer<S>[], ctx: WriteContext): Promise<void>;
}

/** Declares a collection with its item type inferred from the shape. */
export function collection<S extends Shape>(spec: Collection<S>): Collection<S> {
  return spec;
}

/** References to `kind` for each id of a list field (nothing when the list is absent). */
export function refsTo(
  kind: EntityKind,
  keys: readonly (string | number)[] | null,
  field: string,
  company: string | null,
): Reference[] {
  return (keys ?? []).map((key, index) => ({ kind, key, path: [field, index], company }));
}

/** A reference from a single nullable field. */
export function refTo(kind: EntityKind, key: string | number | null, field: string, company: string | null): Reference[] {
  return key === null ? [] : [{ kind, key, path: [field], company }];
}

export function flag(value: boolean | null, fallback: Bool): Bool {
  return value === null ? fallback : value ? 1 : 0;
}

/** `a` must not be after `b` (both ISO UTC, so string order is time order). */
export function periodIssue(from: string, to: string, toField: string, fromField: string): Issue[] {
  return to < from ? [{ path: [toField], message: `must not be before ${fromField}` }] : [];
}

/**
 * Inserts rows in chunks small enough for SQLite's bound-parameter limit and the
 * statement size, whatever the number of rows.
 */
export async function insertRows<T extends TableName>(
  db: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
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
