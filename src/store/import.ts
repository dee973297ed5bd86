import { randomBytes } from 'node:crypto';
import type { Store } from './db.js';
import type { Collection, WriteContext } from './import/collection.js';
import { COLLECTION_NAMES, COLLECTIONS, type CollectionName } from './import/collections/index.js';
import { INVALID, parseObject, type Issue } from './import/fields.js';
import { formatIssue, itemIssue, type ImportIssue } from './import/issues.js';
import { checkAcrossItems, type InvalidItem, type ValidItem } from './import/references.js';

export { COLLECTION_NAMES, formatIssue, type CollectionName, type ImportIssue };

/**
 * Loads an import data file (product decisions §5) into the store: all or nothing.
 *
 * The whole file is validated first (field types and formats, required fields, unknown
 * keys, duplicate ids, references within the file and to stored rows, item rules) and
 * every problem is collected; only a file without problems is written, in one
 * transaction. Ids are kept as given so files can refer to their own rows. An `Id` may be
 * left out only where nothing else in a file can refer to the item (time exceptions,
 * resource types, custom fields, rebate codes, printouts, message templates); the
 * database then assigns it.
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
}

export async function importData(store: Store, data: unknown, options: ImportOptions = {}): Promise<ImportSummary> {
  const { valid, issues } = await validate(store, data);
  if (issues.length > 0) throw new ImportError(issues);

  const ctx: WriteContext = {
    now: (options.now ?? new Date()).toISOString(),
    newWebhookSecret: () => `whsec_${randomBytes(32).toString('base64url')}`,
  };
  const summary = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, 0])) as ImportSummary;
  await store.db.transaction().execute(async (trx) => {
    for (const name of COLLECTION_NAMES) {
      const items = valid.filter((v) => v.collection === name).map((v) => v.item);
      if (items.length === 0) continue;
      await (COLLECTIONS[name] as Collection<any>).write(trx, items, ctx);
      summary[name] = items.length;
    }
  });
  return summary;
}

async function validate(store: Store, data: unknown): Promise<{ valid: ValidItem[]; issues: ImportIssue[] }> {
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
    const items = file[name];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) {
      issues.push({ collection: name, message: 'must be an array' });
      continue;
    }
    items.forEach((raw, index) => {
      const found: Issue[] = [];
      const item = parseObject(COLLECTIONS[name].shape, raw, [], found);
      if (item === INVALID) {
        invalid.push({ collection: name, index, raw });
        for (const issue of found) issues.push(itemIssue(name, index, issue.path, issue.message));
      } else {
        valid.push({ collection: name, index, item });
      }
    });
  }
  issues.push(...(await checkAcrossItems(store.db, valid, invalid)));
  return { valid, issues: sortIssues(issues) };
}

/** File order of collections as the reader meets them: by collection, then item. */
function sortIssues(issues: ImportIssue[]): ImportIssue[] {
  const rank = (name: string) => {
    const at = COLLECTION_NAMES.indexOf(name as CollectionName);
    return at === -1 ? -1 : at;
  };
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) =>
      rank(a.issue.collection) - rank(b.issue.collection) ||
      (a.issue.index ?? -1) - (b.issue.index ?? -1) ||
      a.order - b.order)
    .map(({ issue }) => issue);
}
