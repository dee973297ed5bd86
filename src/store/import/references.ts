import type { Kysely } from 'kysely';
import type { Database, TableName } from '../schema.js';
import type { CheckContext, Collection, EntityKind, KeyClaim, Reference } from './collection.js';
import { COLLECTIONS, ID_KIND, type CollectionName } from './collections/index.js';
import { itemIssue, type ImportIssue } from './issues.js';

/**
 * The checks that look beyond one field: keys claimed twice (in the file, or by a row
 * already stored), references to rows that exist in neither the file nor the store or
 * that belong to another company, and each collection's item rules.
 */

export interface ValidItem {
  collection: CollectionName;
  index: number;
  item: any;
}

/** An item that failed field validation; only its raw `Id` is used. */
export interface InvalidItem {
  collection: CollectionName;
  index: number;
  raw: unknown;
}

type Key = string | number;
interface Owner {
  company: string | null;
  collection: CollectionName;
  index: number;
}

const LABEL: Record<EntityKind, string> = {
  company: 'company', category: 'category', billingMethod: 'billing method',
  messageType: 'message type', service: 'service', customer: 'customer', tag: 'tag',
  resource: 'resource', timeException: 'time exception', booking: 'booking',
  resourceType: 'resource type', customField: 'custom field', customFieldValue: 'custom field value',
  article: 'article', rebateCode: 'rebate code', rebateCodeSign: 'rebate code sign',
  rebateCodeTransaction: 'rebate code transaction', paymentLog: 'payment log',
  printout: 'printout', messageTemplate: 'message template', webhookEndpoint: 'webhook endpoint',
};

/** Where stored rows of each kind live; `company` says whether the table has company_id. */
const STORED: Record<Exclude<EntityKind, 'rebateCodeSign' | 'webhookEndpoint'>, { table: TableName; company: boolean }> = {
  company: { table: 'companies', company: false },
  category: { table: 'categories', company: false },
  billingMethod: { table: 'billing_methods', company: false },
  messageType: { table: 'message_types', company: false },
  service: { table: 'services', company: true },
  customer: { table: 'customers', company: true },
  tag: { table: 'tags', company: true },
  resource: { table: 'resources', company: true },
  timeException: { table: 'time_exceptions', company: true },
  booking: { table: 'bookings', company: true },
  resourceType: { table: 'resource_types', company: true },
  customField: { table: 'custom_fields', company: true },
  customFieldValue: { table: 'custom_field_values', company: false },
  article: { table: 'articles', company: true },
  rebateCode: { table: 'rebate_codes', company: true },
  rebateCodeTransaction: { table: 'rebate_code_transactions', company: true },
  paymentLog: { table: 'payment_logs', company: true },
  printout: { table: 'printouts', company: true },
  messageTemplate: { table: 'message_templates', company: true },
};

export async function checkAcrossItems(
  db: Kysely<Database>,
  valid: ValidItem[],
  invalid: InvalidItem[],
): Promise<ImportIssue[]> {
  const issues: ImportIssue[] = [];
  const inFile = new Map<EntityKind, Map<Key, Owner>>();
  const claims: { at: ValidItem; claim: KeyClaim }[] = [];
  const refs: { at: ValidItem; ref: Reference }[] = [];

  for (const at of valid) {
    const spec = COLLECTIONS[at.collection] as Collection<any>;
    const company: string | null = at.item.CompanyId ?? null;
    for (const claim of spec.keys?.(at.item) ?? []) {
      const owners = mapOf(inFile, claim.kind);
      const first = owners.get(claim.key);
      if (first) {
        issues.push(itemIssue(at.collection, at.index, claim.path, duplicateMessage(claim, first)));
        continue;
      }
      owners.set(claim.key, {
        company: claim.kind === 'company' ? String(claim.key) : company,
        collection: at.collection,
        index: at.index,
      });
      claims.push({ at, claim });
    }
    if (company !== null) refs.push({ at, ref: { kind: 'company', key: company, path: ['CompanyId'], company: null } });
    for (const ref of spec.refs?.(at.item) ?? []) refs.push({ at, ref });
  }

  // Items that failed validation still exist as far as references are concerned.
  const brokenInFile = new Map<EntityKind, Set<Key>>();
  for (const { collection, raw } of invalid) {
    const kind = ID_KIND[collection];
    const key = rawId(raw);
    if (kind && key !== undefined) setOf(brokenInFile, kind).add(key);
  }

  const wanted = new Map<EntityKind, Set<Key>>();
  for (const { claim } of claims) setOf(wanted, claim.kind).add(claim.key);
  for (const { ref } of refs) if (!inFile.get(ref.kind)?.has(ref.key)) setOf(wanted, ref.kind).add(ref.key);
  const stored = new Map<EntityKind, Map<Key, string | null>>();
  for (const [kind, keys] of wanted) stored.set(kind, await lookupStored(db, kind, [...keys]));

  for (const { at, claim } of claims) {
    if (stored.get(claim.kind)?.has(claim.key)) {
      issues.push(itemIssue(at.collection, at.index, claim.path, existsMessage(claim)));
    }
  }
  for (const { at, ref } of refs) {
    const owner = inFile.get(ref.kind)?.get(ref.key);
    const storedOwner = stored.get(ref.kind)?.get(ref.key);
    const ownerCompany = owner ? owner.company : storedOwner;
    if (ownerCompany === undefined) {
      if (!brokenInFile.get(ref.kind)?.has(ref.key)) {
        issues.push(itemIssue(at.collection, at.index, ref.path,
          `refers to ${LABEL[ref.kind]} ${ref.key}, which is neither in this file nor in the store`));
      }
    } else if (ref.company !== null && ownerCompany !== ref.company) {
      issues.push(itemIssue(at.collection, at.index, ref.path,
        `refers to ${LABEL[ref.kind]} ${ref.key}, which belongs to another company`));
    }
  }

  const ctx = await checkContext(db, valid);
  for (const at of valid) {
    const spec = COLLECTIONS[at.collection] as Collection<any>;
    for (const issue of spec.check?.(at.item, ctx) ?? []) {
      issues.push(itemIssue(at.collection, at.index, issue.path, issue.message));
    }
  }
  return issues;
}

function duplicateMessage(claim: KeyClaim, first: Owner): string {
  const where = `${first.collection}[${first.index}]`;
  if (claim.kind === 'rebateCodeSign') return `repeats the sign of ${where} (signs are unique per company, regardless of case)`;
  if (claim.kind === 'webhookEndpoint') return `repeats the id of ${where} in the same company`;
  return `repeats ${LABEL[claim.kind]} id ${claim.key} of ${where}`;
}

function existsMessage(claim: KeyClaim): string {
  if (claim.kind === 'rebateCodeSign') return 'is already used by a stored rebate code of this company (signs are unique regardless of case)';
  if (claim.kind === 'webhookEndpoint') return 'is already used by a stored webhook endpoint of this company';
  return `${LABEL[claim.kind]} ${claim.key} already exists in the store`;
}

function rawId(raw: unknown): Key | undefined {
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).Id : undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value.toLowerCase();
  return undefined;
}

/** Stored rows among `keys`, each with its company (null for global tables). */
async function lookupStored(db: Kysely<Database>, kind: EntityKind, keys: Key[]): Promise<Map<Key, string | null>> {
  const found = new Map<Key, string | null>();
  const anyDb = db as Kysely<any>; // table chosen at run time
  for (let start = 0; start < keys.length; start += 500) {
    const chunk = keys.slice(start, start + 500);
    if (kind === 'rebateCodeSign' || kind === 'webhookEndpoint') {
      // Keys are `company/value`; the value column alone narrows the search.
      const column = kind === 'rebateCodeSign' ? 'sign_key' : 'id';
      const table = kind === 'rebateCodeSign' ? 'rebate_codes' : 'webhook_endpoints';
      const values = chunk.map((key) => String(key).slice(String(key).indexOf('/') + 1));
      const rows = await anyDb.selectFrom(table).select(['company_id', `${column} as value`]).where(column, 'in', values).execute();
      for (const row of rows) found.set(`${row.company_id}/${row.value}`, row.company_id);
      continue;
    }
    const { table, company } = STORED[kind];
    const rows = await anyDb
      .selectFrom(table)
      .select(company ? ['id', 'company_id'] : ['id'])
      .where('id', 'in', chunk)
      .execute();
    for (const row of rows) found.set(row.id, company ? row.company_id : kind === 'company' ? row.id : null);
  }
  return found;
}

/** Message types the templates need, from the file or the store. */
async function checkContext(db: Kysely<Database>, valid: ValidItem[]): Promise<CheckContext> {
  const types = new Map<number, { maxCharacters: number; sendMethodId: number }>();
  for (const { collection, item } of valid) {
    if (collection === 'MessageTypes') types.set(item.Id, { maxCharacters: item.MaxCharacters, sendMethodId: item.SendMethodId });
  }
  const needed = [...new Set(valid.filter((v) => v.collection === 'MessageTemplates').map((v) => v.item.TypeId as number))]
    .filter((typeId) => !types.has(typeId));
  if (needed.length > 0) {
    const rows = await db.selectFrom('message_types').select(['id', 'max_characters', 'send_method_id']).where('id', 'in', needed).execute();
    for (const row of rows) types.set(row.id, { maxCharacters: row.max_characters, sendMethodId: row.send_method_id });
  }
  return { messageType: (typeId) => types.get(typeId) };
}

function mapOf<K, V>(maps: Map<EntityKind, Map<K, V>>, kind: EntityKind): Map<K, V> {
  let map = maps.get(kind);
  if (!map) maps.set(kind, (map = new Map()));
  return map;
}

function setOf<K>(sets: Map<EntityKind, Set<K>>, kind: EntityKind): Set<K> {
  let set = sets.get(kind);
  if (!set) sets.set(kind, (set = new Set()));
  return set;
}
