// ServiceStack's CSV layout (ServiceStack.Text CsvSerializer/CsvWriter): `,` between
// cells, `\r\n` after every row, a header row of field names, nested values in one cell
// as JSV, and a cell quoted when it holds `"` `,` `\r` `\n` or starts with `[` or `{`
// (CsvWriter.HasAnyEscapeChars), so that it cannot be mistaken for JSV when read back.
import { parse } from 'csv-parse/sync';
import { parseJsv, toJsv } from './jsv.js';

export class CsvBodyError extends Error {
  override name = 'CsvBodyError';
}

/** The part of a (dereferenced) JSON schema that coercion looks at. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  nullable?: boolean;
  additionalProperties?: boolean | JsonSchema;
  allOf?: JsonSchema[];
  [keyword: string]: unknown;
}

const ROW_END = '\r\n';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

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

// A cell read as JSV keeps its original text, so that a string field whose value merely
// looks like JSV (`[VIP] guest`, `{draft}`) gets its text back in coerceToSchema.
const RAW_CELL = Symbol('csv.rawCell');

const MAX_NESTING = 32;

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
    if (seen.has(folded)) throw new CsvBodyError(`Invalid CSV body: column '${name}' appears twice`);
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

// defineProperty, so that a field named __proto__ stays an ordinary member.
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  const add = (s: JsonSchema) => {
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) types.add(t);
  };
  add(schema);
  for (const part of schema.allOf ?? []) add(part);
  return types;
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  const parts = [schema, ...(schema.allOf ?? [])].filter((s) => s.properties);
  if (parts.length <= 1) return parts[0]?.properties;
  return Object.assign({}, ...parts.map((s) => s.properties)) as Record<string, JsonSchema>;
}

function itemsOf(schema: JsonSchema): JsonSchema | undefined {
  return schema.items ?? schema.allOf?.find((s) => s.items)?.items;
}

function additionalOf(schema: JsonSchema): JsonSchema | undefined {
  const extra = schema.additionalProperties ?? schema.allOf?.find((s) => s.additionalProperties)?.additionalProperties;
  return typeof extra === 'object' ? extra : undefined;
}

/**
 * The one rule for numbers sent as text (path, query string, CSV cells, JSON strings):
 * an integer is plain decimal digits with an optional `-` (product-decisions §3: no hex,
 * exponent or surrounding blanks); any other number may add a `.` fraction and an
 * exponent, as the CSV writer prints small ones (`1e-7`). Never hex, `Infinity`, `+` or
 * blanks.
 */
const INTEGER_TEXT = /^-?\d{1,20}$/;
const DECIMAL_TEXT = /^-?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?$/;

function coerceScalar(value: string | number | boolean, types: Set<string>, nullable: boolean): unknown {
  if (typeof value === 'string') {
    // Empty text is how JSV says "no value" (`{A:""}`) for a field that is not text.
    if (value === '' && nullable && !types.has('string')) return null;
    if ((types.has('integer') && INTEGER_TEXT.test(value)) || (types.has('number') && DECIMAL_TEXT.test(value))) {
      const n = Number(value);
      if (Number.isFinite(n)) return n;
    }
    if (types.has('boolean')) {
      const lower = value.toLowerCase();
      if (lower === 'true' || value === '1') return true;
      if (lower === 'false' || value === '0') return false;
    }
    return value;
  }
  // Scalars that JSON fallback produced as numbers or booleans where text is expected.
  const wantsOther = types.has('number') || types.has('integer') || types.has('boolean');
  if (types.has('string') && !wantsOther) return String(value);
  return value;
}

/**
 * Turns the strings of a request (path, query string, CSV cells, JSV) into the types the
 * schema asks for, and renames members to the schema's spelling (matched
 * case-insensitively). It is the only coercion (Ajv's is off). What it cannot coerce it
 * leaves alone for validation to report; it never throws.
 */
export function coerceToSchema(value: unknown, schema: JsonSchema): unknown {
  try {
    return coerce(value, schema, 0);
  } catch {
    return value;
  }
}

function coerce(value: unknown, schema: JsonSchema, depth: number): unknown {
  if (value === null || value === undefined || depth > MAX_NESTING || typeof schema !== 'object' || schema === null) return value;
  const types = typesOf(schema);

  if (typeof value === 'object' && RAW_CELL in value && types.has('string') && !types.has('array') && !types.has('object')) {
    return (value as { [RAW_CELL]: string })[RAW_CELL];
  }
  if (typeof value === 'string' && value !== '' && !types.has('string')) {
    const structured = readStructured(value, types);
    if (structured !== undefined) return coerce(structured, schema, depth);
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return coerceScalar(value, types, schema.nullable === true || types.has('null'));
  }
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    return items ? value.map((item) => coerce(item, items, depth + 1)) : value;
  }
  if (isRecord(value)) return coerceObject(value, schema, depth);
  return value;
}

/** JSV text for an array or object field; a list may also come bare (`1,2,3`), as in query strings. */
function readStructured(text: string, types: Set<string>): unknown {
  try {
    if (types.has('array')) return parseJsv(text.startsWith('[') ? text : `[${text}]`);
    if (types.has('object') && text.startsWith('{')) return parseJsv(text);
  } catch {
    // not JSV: left as text for validation to report
  }
  return undefined;
}

function coerceObject(value: Record<string, unknown>, schema: JsonSchema, depth: number): Record<string, unknown> {
  const properties = propertiesOf(schema) ?? {};
  const extra = additionalOf(schema);
  const byLowerName = new Map<string, string>();
  for (const name of Object.keys(properties)) {
    if (!byLowerName.has(name.toLowerCase())) byLowerName.set(name.toLowerCase(), name);
  }
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const exact = Object.hasOwn(properties, key);
    const name = exact ? key : (byLowerName.get(key.toLowerCase()) ?? key);
    // An exact spelling wins over a differently cased duplicate of the same field.
    if (Object.hasOwn(result, name) && !exact) continue;
    const memberSchema = Object.hasOwn(properties, name) ? properties[name] : extra;
    define(result, name, memberSchema ? coerce(member, memberSchema, depth + 1) : member);
  }
  return result;
}
