import { contract } from './contract.js';
import { parseJsv } from './jsv.js';

// Turning a request's text (path, query string, CSV cells, JSV) into the types of the
// contract's schemas: the one place numbers, booleans, enums, dates and lists are read
// from text, as ServiceStack reads them (docs/decisions.md, "Wire format").

/** The part of a (dereferenced) JSON schema that coercion looks at. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  allOf?: JsonSchema[];
  [keyword: string]: unknown;
}

// A cell read as JSV keeps its original text, so that a string field whose value merely
// looks like JSV (`[VIP] guest`, `{draft}`) gets its text back in coerceToSchema.
export const RAW_CELL = Symbol('csv.rawCell');

export const MAX_NESTING = 32;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

// defineProperty, so that a field named __proto__ stays an ordinary member.
export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * What coercion reads of a schema, worked out once per schema object (the route's schemas
 * live as long as the app): its types, members by exact and by lower-cased name, items and
 * additional members.
 */
interface SchemaFacts {
  types: Set<string>;
  properties: Record<string, JsonSchema>;
  byLowerName: Map<string, string>;
  items?: JsonSchema;
  extra?: JsonSchema;
  maxItems?: number;
}

const facts = new WeakMap<JsonSchema, SchemaFacts>();

function factsOf(schema: JsonSchema): SchemaFacts {
  let known = facts.get(schema);
  if (known) return known;
  const types = new Set<string>();
  for (const s of [schema, ...(schema.allOf ?? [])]) {
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) types.add(t);
  }
  const properties = propertiesOf(schema) ?? {};
  const byLowerName = new Map<string, string>();
  for (const name of Object.keys(properties)) {
    if (!byLowerName.has(name.toLowerCase())) byLowerName.set(name.toLowerCase(), name);
  }
  const extra = schema.additionalProperties ?? schema.allOf?.find((s) => s.additionalProperties)?.additionalProperties;
  const maxItems = [schema, ...(schema.allOf ?? [])].find((s) => typeof s.maxItems === 'number')?.maxItems as number | undefined;
  known = {
    types,
    properties,
    byLowerName,
    items: schema.items ?? schema.allOf?.find((s) => s.items)?.items,
    extra: typeof extra === 'object' ? extra : undefined,
    maxItems,
  };
  facts.set(schema, known);
  return known;
}

export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  const parts = [schema, ...(schema.allOf ?? [])].filter((s) => s.properties);
  if (parts.length <= 1) return parts[0]?.properties;
  return Object.assign({}, ...parts.map((s) => s.properties)) as Record<string, JsonSchema>;
}

/**
 * A list longer than its schema's maxItems, cut to maxItems + 1 items: it is refused by its
 * size rule all the same, whose error stands for the whole list (its items get none), and
 * validation then never walks a million items of a 1 MB comma list to say so.
 */
function beyondMaxItems(list: unknown[], max: number | undefined): unknown[] {
  return max !== undefined && list.length > max + 1 ? list.slice(0, max + 1) : list;
}

/**
 * The one rule for numbers sent as text (path, query string, CSV cells, JSON strings):
 * an integer is plain decimal digits with an optional `-` (docs/decisions.md, "Wire format": no hex,
 * exponent or surrounding blanks); any other number may add a `.` fraction and an
 * exponent, as the CSV writer prints small ones (`1e-7`). Never hex, `Infinity`, `+` or
 * blanks.
 */
const INTEGER_TEXT = /^-?\d{1,20}$/;
const DECIMAL_TEXT = /^-?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?$/;

// A date alone where a date-time is expected is that day's midnight, UTC.
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function coerceScalar(value: string | number | boolean, schema: JsonSchema, types: Set<string>): unknown {
  if (typeof value === 'string') {
    // Empty text is how JSV says "no value" (`{A:""}`) for a field that is not text.
    if (value === '' && types.has('null') && !types.has('string')) return null;
    if (schema.format === 'date-time' && DATE_ONLY.test(value)) return `${value}T00:00:00.000Z`;
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
 * case-insensitively). Enums take a name in any case or a number (enumMember, below),
 * a date-time a date alone. It is the only coercion (Ajv's is off). What it cannot coerce
 * it leaves alone for validation to report; it never throws.
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
  const known = factsOf(schema);
  const types = known.types;

  if (typeof value === 'object' && RAW_CELL in value && types.has('string') && !types.has('array') && !types.has('object')) {
    return (value as { [RAW_CELL]: string })[RAW_CELL];
  }
  if (typeof value === 'string' && value !== '' && !types.has('string')) {
    const structured = readStructured(value, types);
    if (structured !== undefined) return coerce(structured, schema, depth);
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const member = enumMember(value, schema);
    return member !== undefined ? member : coerceScalar(value, schema, types);
  }
  if (Array.isArray(value)) {
    const items = known.items;
    const list = beyondMaxItems(value, known.maxItems);
    return items ? list.map((item) => coerce(item, items, depth + 1)) : list;
  }
  if (isRecord(value)) return coerceObject(value, known, depth);
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

function coerceObject(value: Record<string, unknown>, { properties, byLowerName, extra }: SchemaFacts, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = value[key];
    const exact = Object.hasOwn(properties, key);
    const name = exact ? key : (byLowerName.get(key.toLowerCase()) ?? key);
    // An exact spelling wins over a differently cased duplicate of the same field.
    if (Object.hasOwn(result, name) && !exact) continue;
    const memberSchema = Object.hasOwn(properties, name) ? properties[name] : extra;
    define(result, name, memberSchema ? coerce(member, memberSchema, depth + 1) : member);
  }
  return result;
}

// Enums read as ServiceStack reads a C# enum: by name in any case, or by number.

/** The part of a schema that names enum members. */
export interface EnumSchema {
  type?: string | string[];
  enum?: unknown[];
  'x-enum-varnames'?: unknown;
}

let namedEnums: Set<string> | undefined;

/**
 * The member lists of the contract's named string enums (`components/schemas` with an
 * `enum`, such as ChangeType): the service's C# enums. Inline string enums (the `format`
 * parameter, a message template's `Language`) are constrained strings in the service, not
 * C# enums, so they take neither other cases nor numbers.
 */
function serviceEnums(): Set<string> {
  if (namedEnums) return namedEnums;
  const schemas = (contract().document.components?.schemas ?? {}) as Record<string, EnumSchema>;
  namedEnums = new Set(
    Object.values(schemas)
      .filter((s) => s.type === 'string' && Array.isArray(s.enum))
      .map((s) => JSON.stringify(s.enum)),
  );
  return namedEnums;
}

const sameName = (name: unknown, text: string) => typeof name === 'string' && name.toLowerCase() === text.toLowerCase();

const INDEX_TEXT = /^\d{1,9}$/;

/**
 * The enum member `value` names, or undefined (validation then reports the value as sent). A
 * string C# enum takes its names in any case, and a number as the member at that position
 * from 0, C#'s numbering (ChangeType: Increase = 0, Decrease = 1; servicestack-values.test.ts
 * holds every request enum to it). An integer enum takes its `x-enum-varnames` in any case.
 */
export function enumMember(value: unknown, schema: EnumSchema): unknown {
  const members = schema.enum;
  if (!Array.isArray(members)) return undefined;
  const names = schema['x-enum-varnames'];
  // A null member (an enum that admits null) has no name.
  const named = members.filter((member) => member !== null);
  if (Array.isArray(names) && typeof value === 'string' && names.length === named.length) {
    const index = names.findIndex((name) => sameName(name, value));
    if (index >= 0) return named[index];
  }
  if (schema.type !== 'string' || !serviceEnums().has(JSON.stringify(members))) return undefined;
  if (typeof value === 'string') {
    const member = members.find((m) => m === value) ?? members.find((m) => sameName(m, value));
    if (member !== undefined) return member;
    if (INDEX_TEXT.test(value)) return members[Number(value)];
  }
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return members[value];
  return undefined;
}
