import type { Kysely } from 'kysely';
import { isEmpty, type Store } from '../store/db.js';
import type { Database } from '../store/schema.js';
import { withRetries } from '../store/statements.js';
import { newWebhookSecret } from '../webhooks/secret.js';
import type { AnyCollection, Collection, FileItems, WriteContext } from './collection.js';
import { COLLECTION_NAMES, COLLECTIONS, type CollectionName } from './collections/index.js';
import { formatIssue, itemIssue, type ImportIssue } from './issues.js';
import { checkAcrossItems, type InvalidItem, type ValidItem } from './references.js';
import { checkItem } from './validate.js';

export { COLLECTION_NAMES, formatIssue, type CollectionName, type ImportIssue };

/**
 * Loads an import data file (docs/importing.md) into the store, all or nothing: the
 * whole file is checked as requests are (validate.ts, the domain's rules, references) and
 * every problem collected; only a file without any is written, in one transaction
 * (docs/decisions.md, "The data-file import").
 */

/** The file was refused; `errors` names each problem's collection, index and field. */
export class ImportError extends Error {
  constructor(readonly errors: ImportIssue[]) {
    const shown = errors.slice(0, 100).map(formatIssue);
    if (errors.length > shown.length) shown.push(`… and ${errors.length - shown.length} more`);
    super(`The import file has ${errors.length} error(s); nothing was written:\n${shown.join('\n')}`);
    this.name = 'ImportError';
  }
}

/** Number of items written per collection (0 for collections the file did not have). */
export type ImportSummary = Record<CollectionName, number>;

export interface ImportOptions {
  /** The time used for defaulted timestamps (default: now). */
  now?: Date;
  /**
   * Write only into a store that holds no company yet, and answer undefined otherwise:
   * several processes starting on one empty database load the file once between them.
   */
  onlyIntoEmptyStore?: boolean;
}

/** The file's valid items, by collection. */
const itemsOf = (valid: ValidItem[]): FileItems => ({
  of: <T>(collection: Collection<T, unknown>) =>
    valid.filter((at) => at.collection === (collection as AnyCollection)).map((at) => at.item as T),
});

export async function importData(store: Store, data: unknown, options: ImportOptions & { onlyIntoEmptyStore: true }): Promise<ImportSummary | undefined>;
export async function importData(store: Store, data: unknown, options?: ImportOptions): Promise<ImportSummary>;
export async function importData(store: Store, data: unknown, options: ImportOptions = {}): Promise<ImportSummary | undefined> {
  const ctx: WriteContext = {
    now: (options.now ?? new Date()).toISOString(),
    newWebhookSecret,
  };
  // The file is checked against the stored rows inside the transaction that writes it, so
  // what it was checked against is what it is written into, whoever else writes meanwhile.
  const checkAndWrite = async (trx: Kysely<Database>) => {
    if (options.onlyIntoEmptyStore && !(await isEmpty({ db: trx }))) return undefined;
    const { valid, issues } = await validate(trx, data);
    if (issues.length > 0) throw new ImportError(issues);
    const file = itemsOf(valid);
    const summary = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, 0])) as ImportSummary;
    for (const name of COLLECTION_NAMES) {
      const collection: AnyCollection = COLLECTIONS[name];
      const items = file.of(collection);
      if (items.length === 0) continue;
      await collection.write(trx, items, ctx);
      summary[name] = items.length;
    }
    await store.syncIds(trx);
    return summary;
  };
  // Re-run whole on a serialization failure or deadlock, like every other write of the store.
  return withRetries(() => (options.onlyIntoEmptyStore ? store.exclusive(checkAndWrite) : store.db.transaction().execute(checkAndWrite)));
}

async function validate(db: Kysely<Database>, data: unknown): Promise<{ valid: ValidItem[]; issues: ImportIssue[] }> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { valid: [], issues: [{ collection: '(file)', message: 'must be a JSON object with collections as keys' }] };
  }
  const file = data as Record<string, unknown>;
  const issues: ImportIssue[] = [];
  for (const key of Object.keys(file)) {
    if (!Object.hasOwn(COLLECTIONS, key)) {
      issues.push({ collection: key, message: `is not a known collection (known: ${COLLECTION_NAMES.join(', ')})` });
    }
  }

  const valid: ValidItem[] = [];
  const invalid: InvalidItem[] = [];
  for (const name of COLLECTION_NAMES) {
    const collection: AnyCollection = COLLECTIONS[name];
    const items = file[name];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) {
      issues.push({ collection: name, message: 'must be an array' });
      continue;
    }
    items.forEach((raw: unknown, index) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        invalid.push({ collection, raw });
        issues.push({ collection: name, index, message: 'must be an object' });
        return;
      }
      const checked = checkItem(collection.schema, raw);
      if (checked.errors) {
        invalid.push({ collection, raw });
        for (const error of checked.errors) issues.push(itemIssue(name, index, error));
      } else {
        valid.push({ name, collection, index, item: checked.item });
      }
    });
  }
  issues.push(...(await checkAcrossItems(db, valid, invalid)));
  issues.push(...(await checkRules(db, valid)));
  return { valid, issues: sortIssues(issues) };
}

/** Each collection's rules for its valid items, with the facts the collection gathers for them. */
async function checkRules(db: Kysely<Database>, valid: ValidItem[]): Promise<ImportIssue[]> {
  const file = itemsOf(valid);
  const issues: ImportIssue[] = [];
  for (const name of COLLECTION_NAMES) {
    const collection: AnyCollection = COLLECTIONS[name];
    const items = valid.filter((at) => at.collection === collection);
    if (!collection.check || items.length === 0) continue;
    const context = await collection.context?.(db, items.map((at) => at.item), file);
    for (const { index, item } of items) {
      for (const error of collection.check(item, context)) issues.push(itemIssue(name, index, error));
    }
  }
  return issues;
}

/** File order of collections as the reader meets them: by collection, then item. */
function sortIssues(issues: ImportIssue[]): ImportIssue[] {
  const rank = (name: string) => COLLECTION_NAMES.indexOf(name as CollectionName);
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) =>
      rank(a.issue.collection) - rank(b.issue.collection) ||
      (a.issue.index ?? -1) - (b.issue.index ?? -1) ||
      a.order - b.order)
    .map(({ issue }) => issue);
}
