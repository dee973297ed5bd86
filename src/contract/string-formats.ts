/**
 * The formats the server's Ajv adds to ajv-formats', used by the app and by every test that
 * judges a value valid, so both judge alike.
 */

/** A canonical guid: 8-4-4-4-12 hexadecimal digits; no braces, no `urn:uuid:` prefix. */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isGuid = (value: unknown): value is string => typeof value === 'string' && GUID.test(value);

interface FormatRegistry {
  addFormat(name: string, format: RegExp | { type: 'number'; validate: (n: number) => boolean }): unknown;
}

export function addServerFormats(ajv: FormatRegistry): void {
  ajv.addFormat('int16', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -32768 && n <= 32767 });
  // ajv-formats' uuid also takes `urn:uuid:…`, which would then name another company.
  ajv.addFormat('uuid', GUID);
}
