// The type notation of the transcribed interface (interface-responses.ts,
// interface-operations.ts), in the original's own vocabulary, and the walk that pairs each
// transcribed object with the contract schemas that reach it.
//
//   int            integer, int32 (or no format)      int16 / int32 / int64  exact format
//   double         number, format double              decimal  number (double/decimal/no format)
//   string         string (a refining format such as uri or email is allowed)
//   guid           string, format uuid                datetime  string, format date-time
//   timespan       string with an hh:mm:ss pattern    uri       string, format uri ("URI string")
//   bool           boolean                            map       object of string values
//   enum(A|B)      string enum with exactly these values, in this order
//   unspecified    the original names the field without giving a type (only the name is checked)
//   Name           another object transcribed below (checked recursively)
//   [T]            array of T
//   nullable T     the original says nullable (the value may be absent or null)
//   T !            the original says required

import { OPERATIONS, REQUEST_OBJECTS } from './interface-operations.js';
import { RESPONSE_OBJECTS } from './interface-responses.js';
import { deref, jsonSchemaOf, opById, ops, type Obj } from './shared.js';

export type Spec = string;
export type Fields = Record<string, Spec>;

export interface ParsedSpec {
  nullable: boolean;
  required: boolean;
  array: boolean;
  base: string; // primitive name, enum(...), or an object name
}

export function parseSpec(spec: Spec): ParsedSpec {
  let rest = spec.trim();
  let required = false;
  let nullable = false;
  if (rest.endsWith(' !')) {
    required = true;
    rest = rest.slice(0, -2).trim();
  }
  if (rest.startsWith('nullable ')) {
    nullable = true;
    rest = rest.slice('nullable '.length).trim();
  }
  let array = false;
  if (rest.startsWith('[') && rest.endsWith(']')) {
    array = true;
    rest = rest.slice(1, -1);
  }
  return { nullable, required, array, base: rest };
}

const PRIMITIVES = new Set([
  'int', 'int16', 'int32', 'int64', 'double', 'decimal', 'string', 'guid', 'datetime', 'timespan', 'uri', 'bool', 'map', 'unspecified',
]);

function isObjectBase(base: string): boolean {
  return !PRIMITIVES.has(base) && !base.startsWith('enum(');
}

/**
 * Problems of a (resolved) contract schema against one base type of the notation.
 * Object bases are only checked to be objects here; their fields are compared separately.
 */
function baseProblems(schema: Obj, base: string): string[] {
  const p: string[] = [];
  const expect = (type: string, formats: (string | undefined)[]) => {
    if (schema.type !== type) p.push(`type is ${schema.type}, expected ${type}`);
    if (!formats.includes(schema.format)) {
      p.push(`format is ${schema.format ?? '(none)'}, expected ${formats.map((f) => f ?? '(none)').join(' or ')}`);
    }
  };
  if (base.startsWith('enum(')) {
    const values = base.slice('enum('.length, -1).split('|');
    if (schema.type !== 'string') p.push(`type is ${schema.type}, expected string`);
    if (JSON.stringify(schema.enum) !== JSON.stringify(values)) {
      p.push(`enum is ${JSON.stringify(schema.enum)}, expected ${JSON.stringify(values)}`);
    }
    return p;
  }
  switch (base) {
    case 'unspecified':
      break;
    case 'int':
      expect('integer', ['int32', undefined]);
      break;
    case 'int16':
    case 'int32':
    case 'int64':
      expect('integer', [base]);
      break;
    case 'double':
      expect('number', ['double']);
      break;
    case 'decimal':
      expect('number', ['double', 'decimal', undefined]);
      break;
    case 'string':
      // A refining format (uri, email) does not contradict "string"; a data format would.
      expect('string', [undefined, 'uri', 'email']);
      if (schema.enum !== undefined) p.push('has an enum the original does not give');
      break;
    case 'guid':
      expect('string', ['uuid']);
      break;
    case 'datetime':
      expect('string', ['date-time']);
      break;
    case 'uri':
      expect('string', ['uri']);
      break;
    case 'bool':
      if (schema.type !== 'boolean') p.push(`type is ${schema.type}, expected boolean`);
      break;
    case 'timespan': {
      if (schema.type !== 'string') p.push(`type is ${schema.type}, expected string`);
      if (typeof schema.pattern !== 'string') {
        p.push('has no hh:mm:ss pattern');
        break;
      }
      const re = new RegExp(schema.pattern);
      for (const ok of ['00:00:00', '08:30:00', '23:59:59']) if (!re.test(ok)) p.push(`pattern rejects ${ok}`);
      for (const bad of ['8:30', '08:30', '24:00:00', '12:60:00', '2024-01-01T08:00:00Z', 'noon']) {
        if (re.test(bad)) p.push(`pattern accepts ${bad}`);
      }
      break;
    }
    case 'map': {
      if (schema.type !== 'object') p.push(`type is ${schema.type}, expected object`);
      const ap = deref(schema.additionalProperties);
      if (ap === undefined || ap === null || typeof ap !== 'object' || ap.type !== 'string') {
        p.push('additionalProperties is not a string schema');
      }
      break;
    }
    default:
      if (schema.type !== 'object') p.push(`type is ${schema.type}, expected object (${base})`);
  }
  return p;
}

/** Problems of a contract property against a full spec (array wrapping included, nullable excluded). */
export function specProblems(property: unknown, spec: ParsedSpec): string[] {
  let schema = deref(property);
  if (spec.array) {
    if (schema.type !== 'array') return [`type is ${schema.type}, expected array`];
    schema = deref(schema.items);
  }
  return baseProblems(schema, spec.base);
}

/**
 * Problems of a parameter's schema. A parameter may take its value in more than one form
 * (`anyOf`: Meta is the map, or the map as one JSV text for clients that send no
 * deepObject maps); it matches when one form has the original's type.
 */
export function parameterProblems(schema: unknown, spec: ParsedSpec): string[] {
  const forms = deref(schema).anyOf as unknown[] | undefined;
  if (!forms) return specProblems(schema, spec);
  const problems = forms.map((form) => specProblems(form, spec));
  return problems.some((p) => p.length === 0) ? [] : problems.flat();
}

/** The object schema a property leads to (through an array's items), for recursive checks. */
function objectTarget(property: unknown, spec: ParsedSpec): Obj | undefined {
  let schema = deref(property);
  if (spec.array) schema = deref(schema?.items);
  return schema?.type === 'object' ? schema : undefined;
}

/**
 * The original writes "nullable guid, required" (CreateRebateCodeTransaction.CompanyId)
 * and "nullable guid, required by declaration" (DeleteResource's CompanyId), while its
 * conventions define nullable as "the value may be absent or null". Such a field may be
 * declared required or optional; any other field's required flag must be exactly the
 * original's.
 */
export function requiredMatches(spec: ParsedSpec, contractRequired: boolean): boolean {
  if (spec.required && spec.nullable) return true;
  return spec.required === contractRequired;
}

// Walking the contract from the operations, pairing contract schemas with transcribed objects.

export interface Instance {
  where: string; // how the schema was reached, for messages
  schema: Obj;
}

function collect(
  objects: Record<string, Fields>,
  name: string,
  schema: Obj,
  where: string,
  into: Map<string, Instance[]>,
  depth = 0,
): void {
  if (depth > 20) return;
  const list = into.get(name) ?? [];
  list.push({ where, schema });
  into.set(name, list);
  const fields = objects[name];
  if (!fields) return;
  for (const [field, raw] of Object.entries(fields)) {
    const spec = parseSpec(raw);
    if (!isObjectBase(spec.base)) continue;
    const property = schema.properties?.[field];
    if (property === undefined) continue;
    const target = objectTarget(property, spec);
    if (target) collect(objects, spec.base, target, `${where}.${field}${spec.array ? '[]' : ''}`, into, depth + 1);
  }
}

/** Each transcribed response object, with every schema of the contract it describes. */
export const responseInstances = new Map<string, Instance[]>();
for (const [id, doc] of Object.entries(OPERATIONS)) {
  const found = opById.get(id);
  const schema = found ? jsonSchemaOf(found.op.responses?.['200']) : undefined;
  if (schema) collect(RESPONSE_OBJECTS, doc.response, schema, `${id} 200`, responseInstances);
}
// ResponseStatus is also reached through the error responses.
for (const o of ops) {
  for (const [status, response] of Object.entries((o.op.responses ?? {}) as Obj)) {
    if (!/^4\d\d$/.test(status) && status !== 'default') continue;
    const schema = jsonSchemaOf(response);
    const rs = schema?.properties?.ResponseStatus;
    if (rs !== undefined) collect(RESPONSE_OBJECTS, 'ResponseStatus', deref(rs), `${o.operationId} ${status}`, responseInstances);
  }
}

/** Each transcribed request object, with every request body schema it describes. */
export const requestInstances = new Map<string, Instance[]>();
for (const [id, doc] of Object.entries(OPERATIONS)) {
  if (!doc.body) continue;
  const found = opById.get(id);
  const schema = found?.op.requestBody ? jsonSchemaOf(found.op.requestBody) : undefined;
  if (schema) collect(REQUEST_OBJECTS, doc.body, schema, `${id} body`, requestInstances);
}

