import { formatPath, type Path } from './fields.js';

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

export function itemIssue(collection: string, index: number, path: Path, message: string): ImportIssue {
  return path.length === 0
    ? { collection, index, message }
    : { collection, index, field: formatPath(path), message };
}

/** `RebateCodes[3].ValidTo: must be a date-time` */
export function formatIssue(issue: ImportIssue): string {
  const where =
    issue.collection +
    (issue.index === undefined ? '' : `[${issue.index}]`) +
    (issue.field === undefined ? '' : `.${issue.field}`);
  return `${where}: ${issue.message}`;
}
