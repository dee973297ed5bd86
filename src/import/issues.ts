import type { FieldError } from '../domain/refusals.js';

/** One problem in an import file, located by collection, item index and field path. */
export interface ImportIssue {
  /** Top-level key, e.g. `RebateCodes` (`(file)` for the file as a whole). */
  collection: string;
  /** Index of the item in its collection, when the problem is inside an item. */
  index?: number;
  /** Field path inside the item, e.g. `ValidTo` or `Values[1].Value`. */
  field?: string;
  message: string;
}

/** A problem of one item's field, in the server's FieldName and Message. */
export function itemIssue(collection: string, index: number, error: Pick<FieldError, 'FieldName' | 'Message'>): ImportIssue {
  return { collection, index, field: error.FieldName, message: error.Message };
}

/** `RebateCodes[3].ValidTo: 'Valid To' is not a valid date-time.` */
export function formatIssue(issue: ImportIssue): string {
  const where =
    issue.collection +
    (issue.index === undefined ? '' : `[${issue.index}]`) +
    (issue.field === undefined ? '' : `.${issue.field}`);
  return `${where}: ${issue.message}`;
}
