// How two versions of a schema differ, each difference judged for the side of the exchange the
// schema is on (docs/decisions.md, "Contract compatibility"). A request schema says what the
// server accepts: narrowing it refuses what clients send. A response schema says what clients
// receive: widening it hands them values they were not built for. A field or an enum value
// removed breaks either side, since generated clients lose the name. The schemas are OpenAPI
// 3.0's (toOpenApi30's copies of the contracts): `nullable`, one `type`, no `const`.

/**
 * Which side reads the schema: a request the server reads, a response a client reads, or a
 * response that is also stored and answered again later (a webhook event, listed as a
 * message's Payload), which a field newly required breaks: events recorded before lack it.
 */
export type Direction = 'request' | 'response' | 'stored';

export type Schema = {
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  'x-enum-varnames'?: string[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  [keyword: string]: unknown;
};

/**
 * `remove`, `add`, `required`, `optional` name a property; `oneOf.remove`, `oneOf.add` an
 * alternative of a discriminated union; the others the values a schema allows.
 */
export type Kind =
  | 'remove' | 'add' | 'required' | 'optional' | 'enum.remove' | 'enum.add' | 'enum.rename'
  | 'oneOf.remove' | 'oneOf.add' | 'narrow' | 'widen' | 'change';

export interface SchemaChange {
  kind: Kind;
  text: string;
  breaking: boolean;
}

/** Follows a `$ref` to what it names; identity for a document without references. */
export type Deref = (node: unknown) => Schema | undefined;

const upperBounds = ['maximum', 'maxLength', 'maxItems', 'maxProperties'];
const lowerBounds = ['minimum', 'minLength', 'minItems', 'minProperties'];
const flags = ['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems'];
const constraints = ['pattern', 'multipleOf'];
const combinators = ['allOf', 'anyOf', 'oneOf'];
const read = new Set([
  ...['type', 'format', 'nullable', 'enum', 'x-enum-varnames', 'required', 'properties', 'additionalProperties', 'items', 'not'],
  ...upperBounds, ...lowerBounds, ...flags, ...constraints, ...combinators,
]);
// Words for people and generators that change no value a schema allows.
const annotations = new Set([
  ...['description', 'title', 'example', 'examples', 'default', 'deprecated'],
  ...['externalDocs', 'xml', 'readOnly', 'writeOnly', 'discriminator'],
]);
/** A format that allows every value of the one it replaces. */
const widerFormat: Record<string, string> = { int32: 'int64', float: 'double' };

/**
 * One schema that allows every value any of `alternatives` allows: what they all declare (the
 * properties all of them have, their common type), with enum values pooled and each bound at its
 * loosest. A `oneOf` or `anyOf` read as this schema is judged field by field like any other.
 */
export function union(alternatives: unknown[], deref: Deref, depth = 0): Schema {
  const all = alternatives.map((alternative) => deref(alternative) ?? {});
  if (all.length === 0 || depth > 16) return {};
  if (all.every((schema) => json(schema) === json(all[0]))) return all[0];
  const every = (test: (schema: Schema) => unknown) => all.every(test);
  const agreed = (key: string) => (every((schema) => json(schema[key]) === json(all[0][key])) ? all[0][key] : undefined);
  const merged: Schema = {};
  for (const key of ['type', 'format', ...constraints]) if (agreed(key) !== undefined) merged[key] = agreed(key);
  if (every((schema) => schema.type === 'integer' || schema.type === 'number')) merged.type = (agreed('type') as string) ?? 'number';
  if (all.some((schema) => schema.nullable)) merged.nullable = true;
  if (every((schema) => schema.enum)) merged.enum = [...new Map(all.flatMap((schema) => schema.enum!).map((v) => [json(v), v])).values()];
  if (agreed('enum') !== undefined && agreed('x-enum-varnames') !== undefined) {
    merged['x-enum-varnames'] = agreed('x-enum-varnames') as string[];
  }
  for (const [keys, loosest] of [[upperBounds, Math.max], [lowerBounds, Math.min]] as const) {
    for (const key of keys.filter((key) => every((schema) => typeof schema[key] === 'number'))) {
      merged[key] = loosest(...all.map((schema) => schema[key] as number));
    }
  }
  for (const key of flags) if (every((schema) => schema[key] === true)) merged[key] = true;
  const required = all.reduce((names, schema) => names.filter((name) => schema.required?.includes(name)), all[0].required ?? []);
  if (required.length) merged.required = required;
  // Only the properties every alternative declares; any other may hold any value.
  const names = Object.keys(all[0].properties ?? {}).filter((name) => every((schema) => schema.properties && name in schema.properties));
  if (names.length) {
    const properties = names.map((name) => [name, union(all.map((schema) => schema.properties![name]), deref, depth + 1)]);
    merged.properties = Object.fromEntries(properties);
  }
  const shared = json([...names].sort());
  if (every((schema) => json(Object.keys(schema.properties ?? {}).sort()) === shared) && agreed('additionalProperties') !== undefined) {
    merged.additionalProperties = agreed('additionalProperties') as boolean | Schema;
  }
  if (every((schema) => schema.items)) merged.items = union(all.map((schema) => schema.items), deref, depth + 1);
  return merged;
}

/** `schema` with its `oneOf` or `anyOf` read as their union, beside its own keywords. */
export function folded(schema: Schema, key: 'oneOf' | 'anyOf', deref: Deref): Schema {
  const { [key]: alternatives, ...rest } = schema;
  return { ...rest, ...union(alternatives as unknown[], deref) };
}

function typeOf(schema: Schema): string {
  return [schema.type ?? 'any', schema.format].filter(Boolean).join(' ');
}

const json = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value));

/** Whether every value of `before`'s type and format is one of `after`'s. */
function typeAllows(after: Schema, before: Schema): boolean {
  const type = after.type === undefined || after.type === before.type || (before.type === 'integer' && after.type === 'number');
  const format =
    after.format === undefined || after.format === before.format || (before.format !== undefined && widerFormat[before.format] === after.format);
  return type && format;
}

export function compareSchemas(
  before: unknown,
  after: unknown,
  direction: Direction,
  deref: { before: Deref; after: Deref },
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const breaks: Record<Kind, boolean> = {
    remove: true, 'enum.remove': true, 'enum.rename': true, change: true, 'enum.add': false,
    'oneOf.remove': true, 'oneOf.add': false, add: false, required: direction !== 'response', optional: direction !== 'request',
    narrow: direction === 'request', widen: direction !== 'request',
  };
  const note = (kind: Kind, text: string, breaking = breaks[kind]) => changes.push({ kind, text, breaking });
  // The schemas being walked, so a recursive schema ends instead of looping.
  const seen = new Set<Schema>();

  function walk(rawBefore: unknown, rawAfter: unknown, at: string): void {
    const [original, rawA] = [deref.before(rawBefore), deref.after(rawAfter)];
    if (!original || !rawA || typeof original !== 'object' || typeof rawA !== 'object' || seen.has(original)) return;
    seen.add(original);
    let [b, a] = [original, rawA];
    const name = at || 'the body';
    // A schema that became (or stopped being) one of several is compared with their union;
    // the alternatives restrict the values (or stopped restricting them).
    for (const key of ['oneOf', 'anyOf'] as const) {
      const count = (schema: Schema) => (schema[key] as unknown[] | undefined)?.length ?? 0;
      const [countBefore, countAfter] = [count(b), count(a)];
      if ((countBefore === 0) === (countAfter === 0)) continue;
      if (countAfter) a = folded(a, key, deref.after);
      else b = folded(b, key, deref.before);
      note(countAfter ? 'narrow' : 'widen', `${name}: ${key} of ${countBefore} → ${countAfter} schemas`);
    }
    if (typeOf(b) !== typeOf(a)) {
      note(typeAllows(a, b) ? 'widen' : typeAllows(b, a) ? 'narrow' : 'change', `${name}: ${typeOf(b)} → ${typeOf(a)}`);
    }
    if (!!b.nullable !== !!a.nullable) {
      note(a.nullable ? 'widen' : 'narrow', `${name}: ${b.nullable ? 'nullable → not nullable' : 'not nullable → nullable'}`);
    }
    enums(b, a, name);
    for (const key of upperBounds) bound(key, b[key], a[key], name, (x, y) => x > y);
    for (const key of lowerBounds) bound(key, b[key], a[key], name, (x, y) => x < y);
    for (const key of flags) {
      if (!!b[key] !== !!a[key]) note(a[key] ? 'narrow' : 'widen', `${name}: ${key} ${!!b[key]} → ${!!a[key]}`);
    }
    for (const key of constraints) {
      if (json(b[key]) === json(a[key])) continue;
      const kind = b[key] === undefined ? 'narrow' : a[key] === undefined ? 'widen' : 'change';
      note(kind, `${name}: ${key} ${json(b[key])} → ${json(a[key])}`);
    }
    properties(b, a, at);
    const [extraBefore, extraAfter] = [b.additionalProperties ?? true, a.additionalProperties ?? true];
    if (typeof extraBefore === 'object' && typeof extraAfter === 'object') walk(extraBefore, extraAfter, `${name}{}`);
    else if (extraBefore !== extraAfter) {
      const kind = extraAfter === true || extraBefore === false ? 'widen' : extraBefore === true || extraAfter === false ? 'narrow' : 'change';
      const shown = (extra: boolean | Schema) => (typeof extra === 'object' ? 'a schema' : extra);
      note(kind, `${name}: additionalProperties ${shown(extraBefore)} → ${shown(extraAfter)}`);
    }
    if (b.items || a.items) walk(b.items ?? {}, a.items ?? {}, `${name}[]`);
    for (const key of combinators) {
      const [listBefore, listAfter] = [(b[key] ?? []) as unknown[], (a[key] ?? []) as unknown[]];
      if (key !== 'allOf' && b.discriminator && a.discriminator) {
        alternatives(key, listBefore, listAfter, at);
        continue;
      }
      for (let i = 0; i < Math.min(listBefore.length, listAfter.length); i++) walk(listBefore[i], listAfter[i], at);
      if (listBefore.length === listAfter.length) continue;
      // More alternatives allow more values; more schemas that must all hold allow fewer.
      const kind = listAfter.length > listBefore.length === (key !== 'allOf') ? 'widen' : 'narrow';
      note(kind, `${name}: ${key} of ${listBefore.length} → ${listAfter.length} schemas`);
    }
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (key === 'not' || !(read.has(key) || annotations.has(key) || key.startsWith('x-'))) {
        if (json(b[key]) !== json(a[key])) note('change', `${name}: ${key} changed`);
      }
    }
    seen.delete(original);
  }

  /**
   * The alternatives of a discriminated union, paired by the schema each names: each is one kind
   * of value, told apart by the discriminator as an enum's values are, so one removed breaks
   * and one added is listed for review, as an enum value is (WebhookEvent's events).
   */
  function alternatives(key: string, listBefore: unknown[], listAfter: unknown[], at: string): void {
    const named = (list: unknown[]) => new Map(list.map((s, i) => [(s as Schema).$ref ?? `#${i}`, s] as [string, unknown]));
    const [before, after] = [named(listBefore), named(listAfter)];
    const shown = (ref: string) => ref.split('/').pop();
    for (const [ref, schema] of before) {
      if (after.has(ref)) walk(schema, after.get(ref), at);
      else note('oneOf.remove', `${at || 'the body'}: ${key} alternative ${shown(ref)} removed`);
    }
    for (const ref of after.keys()) if (!before.has(ref)) note('oneOf.add', `${at || 'the body'}: ${key} alternative ${shown(ref)} added`);
  }

  function bound(key: string, before: unknown, after: unknown, name: string, wider: (after: number, before: number) => boolean) {
    if (before === after) return;
    const widens = after === undefined || (typeof before === 'number' && typeof after === 'number' && wider(after, before));
    note(widens ? 'widen' : 'narrow', `${name}: ${key} ${json(before)} → ${json(after)}`);
  }

  function enums(b: Schema, a: Schema, name: string): void {
    if (!b.enum && !a.enum) return;
    if (!b.enum || !a.enum) {
      const shown = (schema: Schema) => (schema.enum ? `enum ${json(schema.enum)}` : 'any value');
      note(a.enum ? 'narrow' : 'widen', `${name}: ${shown(b)} → ${shown(a)}`);
      return;
    }
    const names = (schema: Schema) => new Map(schema.enum!.map((value, i) => [json(value), schema['x-enum-varnames']?.[i]]));
    const [valuesBefore, valuesAfter] = [names(b), names(a)];
    const listed = (values: string[]) => `value${values.length > 1 ? 's' : ''} ${values.join(', ')}`;
    const removed = [...valuesBefore.keys()].filter((value) => !valuesAfter.has(value));
    const added = [...valuesAfter.keys()].filter((value) => !valuesBefore.has(value));
    if (removed.length) note('enum.remove', `${name}: enum ${listed(removed)} removed`);
    if (added.length) note('enum.add', `${name}: enum ${listed(added)} added`);
    // Generators name enum members by x-enum-varnames, and requests may send the name.
    for (const [value, before] of valuesBefore) {
      const after = valuesAfter.get(value);
      if (before !== undefined && valuesAfter.has(value) && after !== before) {
        note('enum.rename', `${name}: enum value ${value} named ${before} → ${after ?? 'none'}`);
      }
    }
  }

  function properties(b: Schema, a: Schema, at: string): void {
    const [propsBefore, propsAfter] = [b.properties ?? {}, a.properties ?? {}];
    const [requiredBefore, requiredAfter] = [new Set(b.required), new Set(a.required)];
    const keys = new Set([...Object.keys(propsBefore), ...Object.keys(propsAfter), ...requiredBefore, ...requiredAfter]);
    for (const key of keys) {
      const path = at ? `${at}.${key}` : key;
      if (key in propsBefore && !(key in propsAfter)) note('remove', `${path} removed`);
      else if (!(key in propsBefore) && key in propsAfter) {
        const required = requiredAfter.has(key);
        note('add', `${path} added${required ? ', required' : ''}`, required && direction !== 'response');
      } else {
        if (!requiredBefore.has(key) && requiredAfter.has(key)) note('required', `${path} now required`);
        if (requiredBefore.has(key) && !requiredAfter.has(key)) note('optional', `${path} no longer required`);
        walk(propsBefore[key], propsAfter[key], path);
      }
    }
  }

  walk(before, after, '');
  return changes;
}
