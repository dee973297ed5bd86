import type { AnySchema } from 'ajv';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { createServerAjv } from '../contract/ajv.js';

/**
 * Fastify's own schema compilers, remembered per process: a route's validator or serializer
 * is compiled once for its schema and options, and every app built in the process after the
 * first reuses it. A server builds one app; the test suite builds hundreds per process, and
 * compiling the contract's schemas was half of each build (docs/testing.md).
 */
type Factory = (externalSchemas: any, options: any) => (route: any) => any;

/** JSON of what a compiler is given, naming each function (an Ajv plugin, a format) by its identity. */
const functionIds = new WeakMap<object, number>();
let functions = 0;
const keyOf = (value: unknown) =>
  JSON.stringify(value, (_name, v: unknown) => {
    if (typeof v !== 'function') return v;
    if (!functionIds.has(v)) functionIds.set(v, ++functions);
    return `function ${functionIds.get(v)}`;
  });

function remembered<F extends Factory>(factory: F): F {
  const compiled = new Map<string, unknown>();
  return ((externalSchemas: unknown, options: unknown) => {
    const compile = factory(externalSchemas, options);
    const scope = keyOf([externalSchemas, options]);
    return (route: { schema?: unknown }) => {
      const { schema, ...where } = route;
      const key = `${scope}\n${keyOf(where)}\n${keyOf(schema)}`;
      let done = compiled.get(key);
      if (done === undefined) {
        done = compile(route);
        compiled.set(key, done);
      }
      return done;
    };
  }) as F;
}

/** Fastify's validators on the server's Ajv2020: the contract's schemas are JSON Schema 2020-12. */
function serverValidators(externalSchemas: Record<string, AnySchema | AnySchema[]>) {
  const ajv = createServerAjv();
  for (const schema of Object.values(externalSchemas)) ajv.addSchema(schema);
  return ({ schema }: { schema: AnySchema }) => {
    const id = typeof schema === 'object' ? schema.$id : undefined;
    return (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
  };
}

/**
 * An answer's `oneOf` is written as its value is. fast-json-stringify would choose a branch
 * by validating the value against each, and throw on a value none accepts: the answers' one
 * `oneOf` is a stored webhook event, which an earlier version may have written to an
 * earlier schema (docs/decisions.md, "Events in the contract").
 */
function writtenAsIs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(writtenAsIs);
  if (schema === null || typeof schema !== 'object') return schema;
  if ('oneOf' in schema) return {};
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, writtenAsIs(value)]));
}

const answerSerializers: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => compile({ ...route, schema: writtenAsIs(route.schema) });
};

export const compilersFactory = {
  buildValidator: remembered(serverValidators),
  buildSerializer: remembered(answerSerializers),
};
