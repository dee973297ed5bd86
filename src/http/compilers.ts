import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

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
    return (route: { schema: unknown }) => {
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

export const compilersFactory = {
  buildValidator: remembered(ValidatorSelector()),
  buildSerializer: remembered(SerializerSelector()),
};
