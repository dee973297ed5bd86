import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { AnyCollection, Entity, KeyClaim, Reference } from './collection.js';
import { company } from './collections/reference.js';
import type { ImportIssue } from './issues.js';

/**
 * The checks that look beyond one item: keys claimed twice (in the file, or by a row
 * already stored), and references to rows that exist in neither the file nor the store or
 * that belong to another company.
 */

export interface ValidItem {
  name: string;
  collection: AnyCollection;
  index: number;
  item: unknown;
}

/** An item its schema refused; only its raw `Id` is used. */
export interface InvalidItem {
  collection: AnyCollection;
  raw: unknown;
}

type Key = string | number;
interface Owner {
  company: string | null;
  /** `Services[3]` */
  where: string;
}

/** The company an item belongs to; reference data and companies belong to none. */
const companyOf = (item: unknown): string | null => (item as { CompanyId?: string | null }).CompanyId ?? null;

const idOf = (item: unknown): unknown => (item as { Id?: unknown }).Id;

/** The `Id` of a refused item, as a valid one would have it (guids lower-case). */
function rawId(raw: unknown): Key | undefined {
  const value = typeof raw === 'object' && raw !== null ? idOf(raw) : undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value.toLowerCase();
  return undefined;
}

/** The item's `Id` when its collection names an entity, then the collection's further keys. */
function claimsOf({ collection, item }: ValidItem): KeyClaim[] {
  const { entity, keys } = collection;
  const id = idOf(item);
  const own =
    entity && (typeof id === 'number' || typeof id === 'string')
      ? [{ entity, key: entity.perCompany ? `${companyOf(item)}/${id}` : id, field: 'Id' }]
      : [];
  return [...own, ...(keys?.(item) ?? [])];
}

const issue = (at: ValidItem, field: string, message: string): ImportIssue =>
  ({ collection: at.name, index: at.index, field, message });

function duplicateMessage({ entity, key }: KeyClaim, first: string): string {
  const scope = entity.perCompany;
  return scope ? `repeats the ${scope.what} of ${first} in the same company${scope.note ?? ''}` : `repeats ${entity.label} id ${key} of ${first}`;
}

function existsMessage({ entity, key }: KeyClaim): string {
  const scope = entity.perCompany;
  return scope ? `is already used by a stored ${entity.label} of this company${scope.note ?? ''}` : `${entity.label} ${key} already exists in the store`;
}

export async function checkAcrossItems(db: Kysely<Database>, valid: ValidItem[], invalid: InvalidItem[]): Promise<ImportIssue[]> {
  const issues: ImportIssue[] = [];
  const inFile = new Map<Entity, Map<Key, Owner>>();
  const claims: { at: ValidItem; claim: KeyClaim }[] = [];
  const refs: { at: ValidItem; ref: Reference }[] = [];

  for (const at of valid) {
    const itemCompany = companyOf(at.item);
    for (const claim of claimsOf(at)) {
      const owners = mapOf(inFile, claim.entity, () => new Map<Key, Owner>());
      const first = owners.get(claim.key);
      if (first) {
        issues.push(issue(at, claim.field, duplicateMessage(claim, first.where)));
        continue;
      }
      owners.set(claim.key, { company: itemCompany, where: `${at.name}[${at.index}]` });
      claims.push({ at, claim });
    }
    if (itemCompany !== null) refs.push({ at, ref: { entity: company, key: itemCompany, field: 'CompanyId', company: null } });
    for (const ref of at.collection.refs?.(at.item) ?? []) refs.push({ at, ref });
  }

  // Items the schema refused still exist as far as references are concerned.
  const refused = new Map<Entity, Set<Key>>();
  for (const { collection, raw } of invalid) {
    const key = rawId(raw);
    if (collection.entity && !collection.entity.perCompany && key !== undefined) {
      mapOf(refused, collection.entity, () => new Set<Key>()).add(key);
    }
  }

  const wanted = new Map<Entity, Set<Key>>();
  for (const { claim } of claims) mapOf(wanted, claim.entity, () => new Set<Key>()).add(claim.key);
  for (const { ref } of refs) {
    if (!inFile.get(ref.entity)?.has(ref.key)) mapOf(wanted, ref.entity, () => new Set<Key>()).add(ref.key);
  }
  const stored = new Map<Entity, Map<Key, string | null>>();
  for (const [target, keys] of wanted) stored.set(target, await lookupStored(db, target, [...keys]));

  for (const { at, claim } of claims) {
    if (stored.get(claim.entity)?.has(claim.key)) issues.push(issue(at, claim.field, existsMessage(claim)));
  }
  for (const { at, ref } of refs) {
    const owner = inFile.get(ref.entity)?.get(ref.key);
    const ownerCompany = owner ? owner.company : stored.get(ref.entity)?.get(ref.key);
    const { label } = ref.entity;
    if (ownerCompany === undefined) {
      if (!refused.get(ref.entity)?.has(ref.key)) {
        issues.push(issue(at, ref.field, `refers to ${label} ${ref.key}, which is neither in this file nor in the store`));
      }
    } else if (ref.company !== null && ownerCompany !== ref.company) {
      issues.push(issue(at, ref.field, `refers to ${label} ${ref.key}, which belongs to another company`));
    }
  }
  return issues;
}

/** Stored rows among `keys`, each with its company (null for rows that belong to none). */
async function lookupStored(db: Kysely<Database>, target: Entity, keys: Key[]): Promise<Map<Key, string | null>> {
  const found = new Map<Key, string | null>();
  const column = target.column ?? 'id';
  const anyDb = db as Kysely<any>; // the table is chosen at run time
  for (let start = 0; start < keys.length; start += 500) {
    const chunk = keys.slice(start, start + 500);
    // A key unique within a company is `company/value`; the value column alone narrows the search.
    const values = target.perCompany ? chunk.map((key) => String(key).slice(String(key).indexOf('/') + 1)) : chunk;
    const rows = await anyDb
      .selectFrom(target.table)
      .select(target.owned ? [`${column} as value`, 'company_id'] : [`${column} as value`])
      .where(column, 'in', values)
      .execute();
    for (const row of rows) {
      const key = target.perCompany ? `${row.company_id}/${row.value}` : row.value;
      found.set(key, target.owned ? row.company_id : null);
    }
  }
  return found;
}

function mapOf<K, V>(maps: Map<K, V>, key: K, create: () => V): V {
  let value = maps.get(key);
  if (value === undefined) maps.set(key, (value = create()));
  return value;
}
