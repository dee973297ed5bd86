import { Ajv, type Options } from 'ajv';
import formats from 'ajv-formats';
import { addServerFormats } from './string-formats.js';

/**
 * How the server's Ajv judges a value, in one place: Fastify's validator is built from
 * these options and formats (app.ts), and so is every other validator that must agree
 * with it (the import of data files).
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

/** An Ajv as Fastify's compiler builds the server's: these options, ajv-formats, then the server's formats. */
export function createServerAjv(): Ajv {
  const ajv = new Ajv(serverAjvOptions);
  // ajv-formats is CommonJS: its default export is the plugin itself at run time.
  (formats as unknown as (ajv: Ajv) => void)(ajv);
  addServerFormats(ajv);
  return ajv;
}
