import type { components } from '../generated/openapi.js';
import { notEmpty } from '../domain/refusals.js';

/**
 * The JSON Schemas of import items. Where an item uses the contract's fields, its
 * properties `$ref` the contract's own property schemas, so the contract's types, formats
 * and limits apply as they do to requests; what only the import asks (ids kept as given
 * are positive, CompanyId is required, link lists hold each id once) is composed on top
 * with `allOf`. Each schema carries the type of the values it accepts, taken from the
 * contract's generated types, so the writers and the schemas agree on the fields.
 */

type Components = components['schemas'];
export type Json = { [key: string]: unknown };

export interface Schema<T> {
  readonly json: Json;
  /** Never set: it only carries `T`. */
  readonly type?: T;
}
export type TypeOf<S> = S extends Schema<infer T> ? T : never;

const schema = <T>(json: Json): Schema<T> => ({ json });

/** The id the contract document is registered under with Ajv, so refs read `contract#/components/…`. */
export const CONTRACT_ID = 'contract';

/** Properties of a contract component, each a `$ref` to the component's own property schema. */
export function fromContract<C extends keyof Components, K extends keyof Components[C] & string>(
  component: C,
  names: readonly K[],
): { [P in K]: Schema<Exclude<Components[C][P], undefined>> } {
  const properties: Record<string, Schema<unknown>> = {};
  for (const name of names) properties[name] = schema({ $ref: `${CONTRACT_ID}#/components/schemas/${component}/properties/${name}` });
  // Each property accepts what the contract's generated type for it says.
  return properties as { [P in K]: Schema<Exclude<Components[C][P], undefined>> };
}

export const text = schema<string>({ type: 'string' });
export const bool = schema<boolean>({ type: 'boolean' });
export const int32 = schema<number>({ type: 'integer', format: 'int32' });
/** Stored lower-case, so references match whatever case the file used. */
export const guid = schema<string>({ type: 'string', format: 'uuid' });
/** Stored as ISO UTC. */
export const dateTime = schema<string>({ type: 'string', format: 'date-time' });

/** `base` with constraints of the import's own added. */
export const narrow = <T>(base: Schema<T>, extra: Json): Schema<T> => schema({ allOf: [base.json, extra] });
export const nonNegative = <T>(base: Schema<T>) => narrow(base, { minimum: 0 });
/** Ids the file gives are kept, so they must be ids the store could have made. */
export const positive = <T>(base: Schema<T>) => narrow(base, { minimum: 1 });
export const oneOf = <T>(base: Schema<T>, values: readonly T[]) => narrow(base, { enum: values });

export const listOf = <T>(item: Schema<T>, extra: Json = {}): Schema<T[]> =>
  schema({ type: 'array', items: item.json, ...extra });
/** Ids of a link table: each once, as a repeated one would collide there. */
export const idList = listOf(positive(int32), { uniqueItems: true });

/** Absent optional fields are null in a valid item. */
type Item<P, R> = { [K in keyof P]: TypeOf<P[K]> | (K extends R ? never : null) };

/**
 * An object of `properties` and no other fields. `filled` text fields must hold more than
 * spaces, refused with the server's words for an empty field.
 */
export function object<P extends Record<string, Schema<unknown>>, R extends keyof P & string = never>(
  properties: P,
  rules: { required?: readonly R[]; filled?: readonly (keyof P & string)[] } = {},
): Schema<Item<P, R>> {
  const json: Json = {};
  for (const [name, property] of Object.entries(properties)) {
    json[name] = rules.filled?.includes(name)
      ? narrow(property, { pattern: '\\S', 'x-error-messages': { pattern: notEmpty(name).Message } }).json
      : property.json;
  }
  return schema({ type: 'object', properties: json, required: rules.required ?? [], additionalProperties: false });
}
