import type { ValidateFunction } from 'ajv';
import { nulCharacterErrors } from '../store/statements.js';
import type { FieldError } from '../domain/refusals.js';
import { createServerAjv, type ServerAjv } from '../contract/ajv.js';
import { contract } from '../contract/contract.js';
import { toFieldErrors } from '../contract/validation-errors.js';
import { CONTRACT_ID, type Json, type Schema } from './schema.js';

/**
 * Checks an import item as the server checks a request: with the server's Ajv options and
 * formats, against schemas that refer to the contract's components, failures mapped to
 * field errors by the server's own mapping. A valid item is then brought into the form
 * the store keeps: guids lower-case, date-times ISO UTC, absent fields null.
 */

type Normalize = (value: unknown) => unknown;

let ajv: ServerAjv | undefined;
const prepared = new WeakMap<Schema<unknown>, { validate: ValidateFunction; normalize: Normalize }>();

function prepare(schema: Schema<unknown>) {
  let found = prepared.get(schema);
  if (!found) {
    if (!ajv) {
      ajv = createServerAjv();
      // The contract as a whole is no JSON Schema, only its components are: Ajv's check of
      // it against the meta-schema would say nothing, so it is skipped.
      ajv.addSchema({ ...contract().document, $id: CONTRACT_ID }, undefined, undefined, false);
    }
    found = { validate: ajv.compile(schema.json), normalize: normalizer(schema.json) };
    prepared.set(schema, found);
  }
  return found;
}

export function checkItem<T>(schema: Schema<T>, raw: object): { item: T; errors?: undefined } | { errors: FieldError[] } {
  const { validate, normalize } = prepare(schema);
  const value = withoutNulls(raw);
  // NUL characters are refused as a request refuses them (store/statements.ts).
  const nul = nulCharacterErrors(value);
  if (!validate(value)) return { errors: [...toFieldErrors(validate.errors ?? []), ...nul] };
  if (nul.length > 0) return { errors: nul };
  return { item: normalize(value) as T };
}

/**
 * A copy of the item in which a null field is an absent one, as the file format has it;
 * list items stay, for the schema to refuse. The copy also keeps Ajv's defaults out of
 * the caller's data.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) if (field !== null) copy[name] = withoutNulls(field);
  return copy;
}

/** The schema a `$ref` names: the import's refs and the contract's own all point into the contract. */
function target(ref: string): Json {
  const keys = ref.slice(ref.indexOf('#/') + 2).split('/');
  return keys.reduce<Json>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, contract().document);
}

/** Built once per schema, following its refs into the contract (which has no recursive schemas). */
function normalizer(node: Json): Normalize {
  if (typeof node.$ref === 'string') return normalizer(target(node.$ref));
  if (Array.isArray(node.allOf)) {
    const steps = node.allOf.map((part: Json) => normalizer(part));
    return (value) => steps.reduce((current, step) => step(current), value);
  }
  if (node.format === 'uuid') return (value) => (value as string).toLowerCase();
  if (node.format === 'date-time') return (value) => isoUtc(value as string);
  if (node.items) {
    const item = normalizer(node.items as Json);
    return (value) => (value as unknown[]).map(item);
  }
  if (node.properties) {
    const fields = Object.entries(node.properties as Record<string, Json>).map(([name, field]) => [name, normalizer(field)] as const);
    return (value) => {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, normalize] of fields) out[name] = record[name] === undefined ? null : normalize(record[name]);
      return out;
    };
  }
  return (value) => value;
}

/** ajv-formats' date-time: a `t` or a space between date and time, seconds, an offset with optional colon and minutes. */
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[t\s](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:z|([+-])(\d\d)(?::?(\d\d))?)$/i;

/**
 * A date-time the server's format accepted, as ISO UTC. Not through Date.parse, which
 * refuses some of what the format takes (a `+01` offset, a leap second); milliseconds
 * are cut, not rounded, as Date.parse would.
 */
function isoUtc(value: string): string {
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] =
    DATE_TIME.exec(value) ?? [];
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const at = new Date(0);
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  at.setUTCHours(Number(hour), Number(minute) - offset, Number(second), Number(fraction.padEnd(3, '0').slice(0, 3)));
  return at.toISOString();
}
