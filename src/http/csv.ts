// ServiceStack's CSV layout (ServiceStack.Text CsvSerializer/CsvWriter): `,` between
// cells, `\r\n` after every row, a header row of field names, nested values in one cell
// as JSV, and a cell quoted when it holds `"` `,` `\r` `\n` or starts with `[` or `{`
// (CsvWriter.HasAnyEscapeChars), so that it cannot be mistaken for JSV when read back.
import { parse } from 'csv-parse/sync';
import { define, isRecord, MAX_NESTING, RAW_CELL } from '../contract/coercion.js';
import { excerpt } from '../contract/errors.js';
import { parseJsv, toJsv } from '../contract/jsv.js';

export class CsvBodyError extends Error {
  override name = 'CsvBodyError';
}

const ROW_END = '\r\n';

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value === 'object') return toJsv(value);
  return '';
}

function quoteCell(text: string): string {
  const quote = /[",\r\n]/.test(text) || text.startsWith('[') || text.startsWith('{');
  return quote ? `"${text.replaceAll('"', '""')}"` : text;
}

function row(cells: unknown[]): string {
  return cells.map((cell) => quoteCell(cellText(cell))).join(',') + ROW_END;
}

/**
 * A query envelope (an object with a `Results` array) is written as its rows only; any
 * other object as a header row and one data row. `columns` (the item schema's property
 * names) is the header when given: it names the columns of an empty result, and, like the
 * JSON serializer, leaves out fields that the schema does not declare.
 */
export function toCsv(value: unknown, columns?: string[]): string {
  let rows: unknown[];
  if (isRecord(value) && Array.isArray(value.Results)) rows = value.Results;
  else if (Array.isArray(value)) rows = value;
  else if (isRecord(value)) rows = [value];
  else return row([value]);

  const header = columns ?? fieldNames(rows);
  let out = header.length > 0 ? row(header) : '';
  for (const item of rows) {
    out += isRecord(item) ? row(header.map((name) => item[name])) : row([item]);
  }
  return out;
}

/** The union of the rows' field names, in the order first seen. */
function fieldNames(rows: unknown[]): string[] {
  const names = new Set<string>();
  for (const item of rows) {
    if (isRecord(item)) for (const key of Object.keys(item)) names.add(key);
  }
  return [...names];
}

/** Name of the file a CSV response is offered as, e.g. `CategoryQuery.csv`. */
export function csvFilename(operationId: string): string {
  // The name lands inside a quoted header parameter: keep it to safe characters.
  const safe = operationId.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${safe || 'response'}.csv`;
}

export function contentDisposition(operationId: string): string {
  return `attachment; filename="${csvFilename(operationId)}"`;
}

function withinDepth(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= MAX_NESTING) return false;
  return Object.values(value).every((member) => withinDepth(member, depth + 1));
}

function readCell(text: string): unknown {
  if (!text.startsWith('[') && !text.startsWith('{')) return text;
  let value: unknown;
  try {
    value = parseJsv(text);
  } catch {
    try {
      value = JSON.parse(text);
    } catch {
      return text;
    }
    if (!withinDepth(value)) return text;
  }
  if (typeof value === 'object' && value !== null) Object.defineProperty(value, RAW_CELL, { value: text });
  return value;
}

/**
 * A CSV request body: a header row and exactly one data row. Empty cells are left out;
 * cells starting with `[` or `{` are read as JSV (or JSON); all other cells stay strings
 * for coerceToSchema.
 */
export function parseCsvBody(text: string): Record<string, unknown> {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: false, skip_empty_lines: true });
  } catch (error) {
    throw new CsvBodyError(`Invalid CSV body: ${error instanceof Error ? error.message : String(error)}`);
  }
  const [header, ...data] = records;
  if (!header) throw new CsvBodyError('Invalid CSV body: a header row and one data row are required');
  const names = header.map((name) => name.trim());
  if (names.some((name) => name === '')) throw new CsvBodyError('Invalid CSV body: the header row has an empty column name');
  const seen = new Set<string>();
  for (const name of names) {
    const folded = name.toLowerCase();
    if (seen.has(folded)) throw new CsvBodyError(`Invalid CSV body: column '${excerpt(name, 50)}' appears twice`);
    seen.add(folded);
  }
  if (data.length !== 1) {
    throw new CsvBodyError(`Invalid CSV body: expected exactly one data row after the header, found ${data.length}`);
  }
  const result: Record<string, unknown> = {};
  data[0]!.forEach((cell, i) => {
    if (cell !== '') define(result, names[i]!, readCell(cell));
  });
  return result;
}
