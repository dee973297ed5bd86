import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's own schema compilers, remembered per process: a route's validator or serializer
 * is compiled once for its schema and options, and every app built in the process after the
 * first reuses it. A server builds one app; the test suite builds hundreds per process, and
 * compiling the contract's schemas was half of each build (docs/testing.md).
 */
type Factory = (externalSchemas: any, options: any) => (route: any) => any;

function remembered<F extends Factory>(factory: F): F {
  const compiled = new Map<string, unknown>();
  return ((externalSchemas: unknown, options: unknown) => {
    const compile = factory(externalSchemas, options);
    const scope = JSON.stringify([externalSchemas, options]);
    return (route: { schema: unknown }) => {
      const { schema, ...where } = route;
      const key = `${scope}\n${JSON.stringify(where)}\n${JSON.stringify(schema)}`;
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
