import type { Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { addServerFormats } from './string-formats.js';

/**
 * How the server's Ajv judges a value, in one place. The contract is OpenAPI 3.1, whose
 * schemas are JSON Schema 2020-12, so every validator is Ajv2020 with these options and
 * formats: the executor's, Fastify's (compilers.ts), the import's and the tests'.
 */

export { addServerFormats };

/** Fastify's `ajv.customOptions`; they override every default of Fastify's compiler that matters here. */
export const serverAjvOptions = {
  allErrors: true,
  strict: false,
  // Off: the request's text is turned into the schema's types by coerceToSchema alone,
  // which reads plain decimal numbers only (Ajv's coercion takes `0x10` and `2.01e2`).
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  // The error mapping (validation-errors.ts) reads each error's data and parent schema.
  verbose: true,
} as const satisfies Options;

export type ServerAjv = Ajv2020;

/** The server's Ajv: JSON Schema 2020-12, these options, ajv-formats, then the server's formats. */
export function createServerAjv(options: Options = {}): ServerAjv {
  const ajv = new Ajv2020({ ...serverAjvOptions, ...options });
  // ajv-formats is CommonJS: its default export is the plugin itself at run time.
  (formats as unknown as (ajv: Ajv2020) => void)(ajv);
  addServerFormats(ajv);
  return ajv;
}
