import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import type { JsonSchema } from '../contract-operations.js';
import { createServerAjv } from '../../src/contract/ajv.js';

/**
 * fast-check arbitraries from the contract's dereferenced JSON schemas: `validValue(schema)`,
 * what the schema accepts (every keyword it uses, boundary values, ids of the fixture data
 * through `real`); `invalidValue(schema)`, a value that breaks one of its rules; `junk`,
 * anything odd (lone surrogates, RTL and zero-width text, NUL, huge strings, deep nesting,
 * prototype-polluting keys). Every "valid" scalar is checked with the server's Ajv, so a
 * generator bug shows as a filtered value rather than a false claim.
 */

export type Schema = JsonSchema & {
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  additionalProperties?: boolean | Schema;
};

/**
 * Values of the fixture data for a field, by the field's path (`ArticleId`,
 * `Resources[].Id`, `Customer.Email`, `Services[]`); undefined: none known.
 */
export type RealValues = (path: string) => readonly unknown[] | undefined;

export interface ValueOptions {
  /** the field's path within the value generated at the top (see RealValues) */
  path?: string;
  real?: RealValues;
}

const member = (path: string | undefined, name: string) => (path ? `${path}.${name}` : name);

/** The type of a schema besides null (`type: [integer, 'null']` is an integer that may be null). */
export const typeOf = (schema: Schema) => (Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type);
const admitsNull = (schema: Schema) => Array.isArray(schema.type) && schema.type.includes('null');

// ---- Ajv with the server's formats: the judge of "valid" ----

// The judge takes a value as given: no defaults are filled in, and the first error is enough.
const ajv = createServerAjv({ allErrors: false, useDefaults: false, verbose: false });
const compiled = new WeakMap<object, ValidateFunction>();

/** True when Ajv (with the server's formats) accepts `value` for `schema`. */
export function accepts(schema: Schema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) === true;
}

// ---- strings ----

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const INT16 = { min: -32768, max: 32767 };
/** Cap on generated lengths (a maxLength of 100000 is tested at its boundary, not by chance). */
const TYPICAL_LENGTH = 40;

/** Single code points (so minLength/maxLength, which count code points, hold). */
const unicodeUnit = fc.oneof(
  fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 1 }),
  fc.constantFrom('😀', '👍🏽'.slice(0, 2), '\u202e', '\u200f', 'ש', 'ع', '\u200b', '\ufeff', '\u0000', '\t', '\n', '"', ',', '{', '[', ':', '%', '\\', ' '),
);

/** Lone high or low surrogates: not valid UTF-16 text, yet a JS string (and JSON) can carry them. */
export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Text of `min`..`max` code points: ASCII, any single code point, or the characters CSV, JSV and SQL care about. */
export function text(min = 0, max = TYPICAL_LENGTH): fc.Arbitrary<string> {
  const hi = Math.min(max, Math.max(min, TYPICAL_LENGTH));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: hi }) },
    { weight: 2, arbitrary: fc.string({ unit: unicodeUnit, minLength: min, maxLength: hi }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: hi }) },
  );
}

/** Unicode that breaks naive code: lone surrogates, emoji, RTL overrides, zero-width, NUL. */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.oneof(loneSurrogate, unicodeUnit), minLength: 1, maxLength: 20 }),
  // eslint-disable-next-line no-template-curly-in-string -- a template placeholder is one of the hostile strings
  fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\ude00b', '😀'.repeat(50), '\u202egnp.exe', 'ﷺ', 'Z̸̡̛a̷l̶g̴o̵', '\u0000', "'; drop table tags; --", '%00', '${x}', '{{x}}', '<script>', '\r\n,",{[}]'),
);

/** 100 000 characters (or code points) of one kind. */
export const hugeString: fc.Arbitrary<string> = fc
  .constantFrom('a', 'é', '😀', '\ud800', ',', '"', '[')
  .map((unit) => unit.repeat(100_000));

// ---- formats ----

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** RFC 3339 date-times as Ajv's full `date-time` accepts them: T/t/space, fractions, offsets, z, leap seconds. */
export const dateTime: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        y: fc.integer({ min: 0, max: 9999 }),
        mo: fc.integer({ min: 1, max: 12 }),
        d: fc.integer({ min: 1, max: 28 }),
        h: fc.integer({ min: 0, max: 23 }),
        mi: fc.integer({ min: 0, max: 59 }),
        s: fc.integer({ min: 0, max: 59 }),
        frac: fc.constantFrom('', '.0', '.5', '.123', '.123456789'),
        sep: fc.constantFrom('T', 't', ' '),
        tz: fc.constantFrom('Z', 'z', '+00:00', '-00:00', '+01:00', '-05:30', '+2359', '-23:59', '+14'),
      })
      .map((p) => `${pad(p.y, 4)}-${pad(p.mo)}-${pad(p.d)}${p.sep}${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}${p.frac}${p.tz}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('2024-02-29T12:00:00Z', '2016-12-31T23:59:60Z', '2016-12-31T23:59:60.999Z', '2017-01-01T00:59:60+01:00', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z') },
);

export const uuid: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff') },
);

export const email: fc.Arbitrary<string> = fc.oneof(
  fc.emailAddress(),
  fc.constantFrom('a@b.co', 'ANNA.SVENSSON@EXAMPLE.COM', 'x+tag@example.org', "o'hara@example.ie"),
);

/** http(s) URLs: hosts as names, IPv4 and IPv6 literals, ports, user info, queries, fragments. */
export const webUrl: fc.Arbitrary<string> = fc.oneof(
  fc.webUrl({
    validSchemes: ['http', 'https'],
    withQueryParameters: true,
    withFragments: true,
    authoritySettings: { withIPv4: true, withIPv6: true, withPort: true, withUserInfo: true },
  }),
  fc.constantFrom(
    'https://example.org/hooks/bookings',
    'HTTPS://EXAMPLE.ORG',
    'http://127.0.0.1:8080/x',
    'http://[::1]/x',
    'http://169.254.169.254/latest/meta-data',
    'https://localhost/hook',
    'https://internal.example/hook',
    'https://nxdomain.example/hook',
    'http://user:pass@example.org/',
    'https://xn--bcher-kva.example/',
    'https://[::ffff:10.0.0.1]/',
    'http://0x7f000001/',
    'http://2130706433/',
  ),
);

// ---- numbers ----

function numericBounds(schema: Schema): { min: number; max: number } {
  const byFormat =
    schema.format === 'int32' ? INT32 : schema.format === 'int16' ? INT16 : typeOf(schema) === 'integer' ? { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } : { min: -1e12, max: 1e12 };
  let min = Math.max(byFormat.min, schema.minimum ?? -Infinity);
  let max = Math.min(byFormat.max, schema.maximum ?? Infinity);
  const step = typeOf(schema) === 'integer' ? 1 : Number.EPSILON * 1024;
  if (schema.exclusiveMinimum !== undefined) min = Math.max(min, schema.exclusiveMinimum + step);
  if (schema.exclusiveMaximum !== undefined) max = Math.min(max, schema.exclusiveMaximum - step);
  return { min, max };
}

function integerValue(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = numericBounds(schema);
  const edges = [min, max, min + 1, max - 1, 0, 1, -1].filter((n) => n >= min && n <= max);
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

function numberValue(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = numericBounds(schema);
  const edges = [min, max, 0, 0.1, 1 / 3, 1e-9].filter((n) => n >= min && n <= max);
  return fc.oneof(
    { weight: 2, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
    { weight: 2, arbitrary: integerValue({ ...schema, type: 'integer', format: undefined, minimum: Math.ceil(min), maximum: Math.floor(max) }) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

// ---- valid values ----

function stringValue(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 10_000;
  let base: fc.Arbitrary<string>;
  if (schema.format === 'uuid') base = uuid;
  else if (schema.format === 'date-time') base = dateTime;
  else if (schema.format === 'email') base = email;
  else if (schema.format === 'uri') base = webUrl;
  else if (schema.pattern) base = fc.stringMatching(new RegExp(schema.pattern));
  else {
    const edges: fc.Arbitrary<string>[] = [fc.constant('x'.repeat(Math.max(min, 1)))];
    if (max <= 100_000) edges.push(fc.constantFrom('x', 'é', '😀').map((c) => c.repeat(max)));
    base = fc.oneof({ weight: 8, arbitrary: text(min, max) }, { weight: 1, arbitrary: fc.oneof(...edges) });
  }
  return base.filter((s) => accepts(schema, s));
}

/** A value `schema` accepts (see the module comment). */
export function validValue(schema: Schema, options: ValueOptions = {}): fc.Arbitrary<unknown> {
  let base = generated(schema, options);
  const real = options.path !== undefined ? options.real?.(options.path)?.filter((v) => accepts(schema, v)) : undefined;
  if (real && real.length > 0) base = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: base });
  if (admitsNull(schema)) base = fc.oneof({ weight: 5, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) });
  return base;
}

function generated(schema: Schema, options: ValueOptions): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  // A value that may take one of several forms (Meta: a map, or the map as JSV text).
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((form) => validValue(form, options)));
  switch (typeOf(schema)) {
    case 'string':
      return stringValue(schema);
    case 'integer':
      return integerValue(schema).filter((n) => accepts(schema, n));
    case 'number':
      return numberValue(schema).filter((n) => accepts(schema, n));
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = validValue(schema.items as Schema, { ...options, path: `${options.path ?? ''}[]` });
      const min = schema.minItems ?? 0;
      const max = schema.maxItems ?? 20;
      return fc.oneof(
        { weight: 8, arbitrary: fc.array(items, { minLength: min, maxLength: Math.max(min, Math.min(max, 5)) }) },
        { weight: 1, arbitrary: fc.array(items, { minLength: max, maxLength: max }) },
      );
    }
    case 'object':
    default:
      return objectValue(schema, options);
  }
}

function objectValue(schema: Schema, options: ValueOptions): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const members: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) members[name] = validValue(property, { ...options, path: member(options.path, name) });
  const record = fc.record(members, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
  const extra = schema.additionalProperties;
  if (typeof extra !== 'object') return record;
  const keys = fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('source', 'trace-id', 'ü', 'a b'));
  return fc
    .tuple(record, fc.dictionary(keys, validValue(extra, { ...options, path: member(options.path, '*') }), { maxKeys: 3, noNullPrototype: true }))
    .map(([known, more]) => ({ ...more, ...(known as object) }));
}

// ---- invalid values ----

const otherTypes: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.constantFrom<unknown>({}, [], { a: 1 }, [[1]]),
  integer: fc.constantFrom<unknown>('abc', '1.5', 1.5, -0.5, true, {}, [1, 2], 'Infinity', '0x10', '1e3', ' 7 ', ''),
  number: fc.constantFrom<unknown>('abc', true, {}, [1, 2], 'NaN', '1,5', ''),
  boolean: fc.constantFrom<unknown>('maybe', 'yes', 2, -1, {}, [true, false], 'TRUE ', ''),
  array: fc.constantFrom<unknown>({}, { 0: 1 }, 'x,y'),
  object: fc.constantFrom<unknown>('x', 5, true, [], [{}], '{}'),
};

const badFormats: Record<string, string[]> = {
  uuid: ['not-a-uuid', '00000000-0000-4000-8000-00000000000', '00000000-0000-4000-8000-00000000000aa', '{00000000-0000-4000-8000-00000000000a}', '00000000000040008000000000000000a', 'gggggggg-0000-4000-8000-00000000000a', ' 00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000a\u0000'],
  'date-time': ['2024-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01', '2024-01-01T25:00:00Z', '2024-01-01T00:00:00', 'yesterday', '1700000000', '+275760-09-13T00:00:00Z', '2024-01-01T00:00:00+24:00', '2024-01-01T10:00:60Z'],
  email: ['not-an-email', 'a@', '@b.co', 'a b@c.de', 'a@b_c.de', 'a@@b.co', 'a@-b.co', 'ä@example.com'],
  uri: ['not a url', 'example.org/x', '//example.org', 'ftp://example.org/x', 'javascript:alert(1)', 'http://', 'https:example.org', 'http://exa mple.org', 'file:///etc/passwd', 'http://[::1'],
};

/** A value that breaks at least one rule of `schema` (or, for loose schemas, an odd one). */
export function invalidValue(schema: Schema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  const type = typeOf(schema) ?? 'object';
  options.push(otherTypes[type] ?? otherTypes.object);
  if (!admitsNull(schema)) options.push(fc.constant(null));
  if (schema.enum) {
    const names = schema.enum.map(String);
    options.push(fc.constantFrom('', 'Unknown', ...names.map((n) => n.toLowerCase()), ...names.map((n) => ` ${n}`), 0, 1));
  }
  if (type === 'integer' || type === 'number') {
    const { min, max } = numericBounds(schema);
    const beyond = [min - 1, max + 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), 1e308, -1e308];
    options.push(fc.constantFrom(...beyond.filter((n) => !accepts(schema, n))));
    if (type === 'integer') options.push(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Number.isInteger(n)));
  }
  if (type === 'string') {
    if (schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(schema.maxLength + 1)));
    options.push(hugeString);
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant(''));
    const bad = schema.format ? badFormats[schema.format] : undefined;
    if (bad) options.push(fc.constantFrom(...bad));
    if (schema.pattern) options.push(fc.constantFrom('', ' ', 'x', '99:99:99', 'mailto:x@y.z', '//x'));
    options.push(nastyText);
  }
  if (type === 'array') {
    if ((schema.minItems ?? 0) > 0) options.push(fc.constant([]));
    if (schema.maxItems !== undefined) options.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, (_, i) => i + 1)));
    if (schema.items) options.push(fc.array(invalidValue(schema.items as Schema), { minLength: 1, maxLength: 3 }));
  }
  if (type === 'object' && schema.properties) {
    const required = schema.required ?? [];
    if (required.length > 0) {
      options.push(
        fc.tuple(validValue(schema), fc.constantFrom(...required)).map(([value, name]) => {
          const copy = { ...(value as object) } as Record<string, unknown>;
          delete copy[name];
          return copy;
        }),
      );
    }
  }
  return fc.oneof(...options).filter((v) => !accepts(schema, v) || type === 'string');
}

// ---- junk ----

/** Arrays (or objects) nested `depth` deep: `[[[…]]]`. */
export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** The same as JSON text, built without recursion (so depth is no limit for the sender). */
export function nestedJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Anything: odd scalars, nasty and huge text, deep nesting, prototype keys. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 3, withNullPrototype: false }),
  nastyText,
  hugeString,
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, 1e308, true, false, null, '', ' ', '[]', '{}', 'null', 'undefined', 'NaN'),
  fc.integer({ min: 50, max: 3000 }).chain((depth) => fc.constantFrom(nested(depth, 'array'), nested(depth, 'object'))),
  fc.constantFrom<unknown>(JSON.parse('{"__proto__":{"polluted":1}}'), { constructor: { prototype: { polluted: 1 } } }, { toString: 1, valueOf: 'x' }),
);

/** Names an attacker or a sloppy client might send as extra members. */
export const extraKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'Id', 'id', 'ID', 'ResponseStatus', '', ' ', 'a.b', 'a[0]', '$where'),
  fc.string({ minLength: 1, maxLength: 12 }),
  nastyText,
);
