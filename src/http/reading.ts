import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import accepts from 'accepts';
import type { FastifyRequest } from 'fastify';
import { operations } from '../contract/operations.js';
import { ApiError, badRequest } from '../contract/errors.js';

// How an HTTP request is read before any operation sees it: its text as UTF-8, its query
// string, its URL (a format suffix, ServiceStack's predefined routes) and the answer's format.

/**
 * Request text is UTF-8 (RFC 8259 for JSON, and so for CSV, JSV and query strings): bytes
 * that are not are refused, never read with U+FFFD in their place, so that nothing that was
 * sent is stored altered.
 */

/** A body's bytes as text; 400 when they are not UTF-8. */
export function utf8Body(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw badRequest('SerializationException', 'The request body is not valid UTF-8.');
  return bytes.toString('utf8');
}

// eslint-disable-next-line no-control-regex -- the Latin-1 range starts at U+0000
const NON_LATIN1 = /[^\x00-\xff]/;

/**
 * One key or value of a query string, percent-decoded (`+` is a space), or undefined when
 * its bytes are not UTF-8. Node hands the request target over byte for byte (one character
 * per byte), so the raw bytes of a URL and its `%XX` escapes are decoded alike; text that
 * holds wider characters came from within the process and is already text.
 */
export function decodeQueryComponent(text: string): string | undefined {
  if (!/[%+\x80-\uffff]/.test(text)) return text;
  if (NON_LATIN1.test(text)) return new URLSearchParams(`v=${text}`).get('v') ?? '';
  const bytes = percentDecoded(text);
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/** The bytes of a one-byte-per-character text with its `%XX` escapes decoded; a `%` without two hex digits stays itself. */
function percentDecoded(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x25 && HEX.test(text.slice(i + 1, i + 3))) {
      bytes[n++] = Number.parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else {
      bytes[n++] = code === 0x2b ? 0x20 : code;
    }
  }
  return bytes.subarray(0, n);
}

/** The names of the query parameters whose bytes were not UTF-8, on the parsed query. */
const NOT_UTF8 = Symbol('query parameters that are not UTF-8');

type ParsedQuery = Record<string, unknown> & { [NOT_UTF8]?: string[] };

/** The query parameters of a parsed query string whose bytes were not UTF-8 (usually none). */
export function queryNotUtf8(query: unknown): readonly string[] {
  return (query as ParsedQuery | undefined)?.[NOT_UTF8] ?? [];
}

/**
 * Parses a query string the way the contract describes it: repeated keys become lists,
 * `Meta[key]=value` (OpenAPI deepObject style) becomes `{ Meta: { key: value } }`, and
 * blank values are dropped, since a blank parameter means "not given" (a blank
 * CompanyId uses the caller's company). Objects have no prototype, so no key can
 * reach Object.prototype. A key or value whose bytes are not UTF-8 is left out and named
 * (queryNotUtf8), for the route to refuse: the router calls this, where nothing can be
 * answered yet.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  const result: ParsedQuery = Object.create(null);
  let count = 0;
  for (const pair of text.split('&', 201)) {
    if (pair === '' || ++count > 200) continue;
    const eq = pair.indexOf('=');
    const key = decodeQueryComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeQueryComponent(pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      const name = key ?? new URLSearchParams(`${pair.slice(0, eq === -1 ? undefined : eq)}`).keys().next().value ?? '';
      (result[NOT_UTF8] ??= []).push(name);
      continue;
    }
    if (value === '') continue;
    const deep = /^([^[\]]+)\[([^[\]]*)\]$/.exec(key);
    if (deep) {
      const [, name, member] = deep;
      let map = result[name];
      if (map === undefined || typeof map !== 'object' || Array.isArray(map)) {
        map = Object.create(null);
        result[name] = map;
      }
      (map as Record<string, string>)[member] = value;
      continue;
    }
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  return result;
}

export type Format = 'json' | 'csv';

declare module 'fastify' {
  interface FastifyRequest {
    /** the response format negotiated for this request */
    format: Format;
  }
}

const suffix = Symbol('format suffix');
type RawWithSuffix = IncomingMessage & { [suffix]?: Format };

/**
 * Takes a format suffix off a request's path, remembering the format it asks for:
 * `/categories.csv` is routed as `/categories` in CSV, `/api/CategoryQuery.json` as
 * `/api/CategoryQuery` in JSON. `.json` only where the path without it is an operation's
 * (`isOperationPath`), since `/openapi.json` and the docs' files are files of that name.
 */
export function takeFormatSuffix(raw: IncomingMessage, path: string, isOperationPath: (path: string) => boolean): string {
  const match = /\.(csv|json)$/i.exec(path);
  if (!match || path.length === match[0].length + 1) return path;
  const stripped = path.slice(0, -match[0].length);
  const format = match[1].toLowerCase() as Format;
  if (format === 'json' && !isOperationPath(stripped)) return path;
  (raw as RawWithSuffix)[suffix] = format;
  return stripped;
}

const notAcceptable = (message: string) => new ApiError(406, 'NotAcceptable', message);

function fromName(name: string): Format {
  const lower = name.trim().toLowerCase();
  if (lower === 'csv' || lower === 'json') return lower;
  throw notAcceptable(`The format '${name.slice(0, 50)}' is not supported; use json or csv.`);
}

const mediaTypes: Record<string, Format> = { 'application/json': 'json', 'text/csv': 'csv' };

/**
 * The response format: `?format=` first, then a `.csv`/`.json` suffix, then Accept.
 * JSON is the default; an explicit request for anything else is 406. `query`: the parsed
 * query string, where the router has not parsed it.
 */
export function negotiateFormat(request: FastifyRequest, query = request.query as Record<string, unknown> | undefined): Format {
  const named = query?.format;
  if (typeof named === 'string' && named !== '') return fromName(named);
  const fromSuffix = (request.raw as RawWithSuffix)[suffix];
  if (fromSuffix) return fromSuffix;
  // The best of the two by the header's q-values and wildcards; JSON when there is none. Read
  // off the raw request, which the router's own refusals (errors.ts) have as well.
  const fromHeader = accepts(request.raw).type(Object.keys(mediaTypes));
  if (typeof fromHeader !== 'string') throw notAcceptable('The Accept header allows neither application/json nor text/csv.');
  return mediaTypes[fromHeader];
}

/**
 * ServiceStack's predefined routes (docs/decisions.md, "Wire format"): every operation is also served at
 * `/api/{OperationId}` and `/json/reply/{OperationId}`, the routes ServiceStack's clients
 * (JsonServiceClient) call by default. Such a request is routed as a request to the
 * operation's own route, so that authentication, roles, company rules, validation, rate
 * limits and errors are exactly that route's. Only the operation's own method is served
 * there (HEAD too for a GET): ServiceStack would take any method, but its clients call an
 * operation with the method of its route, and a GET that deletes would be unsafe (links,
 * prefetching, caches). Any other method answers 405 with `Allow`, as on the own path.
 */

interface Operation {
  /** the operation's own path, with PATH_VALUE in place of each path parameter */
  path: string;
  /** the operation's path template as a pattern (`/tags/{Id}` → /tags/<segment>) */
  pattern: RegExp;
}

/**
 * The segment a predefined route puts in place of a path parameter: there, the parameter
 * comes from the query string or the body, and the route hooks bind it (servicestack-binding.ts).
 */
const PATH_VALUE = '_';

const PREDEFINED = /^\/(?:api|json\/reply)\/([^/]+)\/?$/;
let byName: Map<string, Operation> | undefined;

/** The contract's operations by lower-cased OperationId (ServiceStack matches names in any case). */
function operationsByName(): Map<string, Operation> {
  byName ??= new Map(
    [...operations().values()].map(({ operationId, path }) => {
      const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      const operation = { path: path.replace(/\{[^}]+\}/g, PATH_VALUE), pattern: new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) };
      return [operationId.toLowerCase(), operation];
    }),
  );
  return byName;
}

const predefined = Symbol('predefined route');
type RawRequest = IncomingMessage & { [predefined]?: true };

/** The operation a predefined route's path names, if any. */
function predefinedOperation(path: string): Operation | undefined {
  const name = PREDEFINED.exec(path)?.[1];
  return name === undefined ? undefined : operationsByName().get(name.toLowerCase());
}

function isOperationPath(path: string): boolean {
  if (predefinedOperation(path)) return true;
  for (const operation of operationsByName().values()) if (operation.pattern.test(path)) return true;
  return false;
}

/** True when the request came by a predefined route: its path parameters are not in its path. */
export function isPredefinedRoute(raw: IncomingMessage): boolean {
  return (raw as RawRequest)[predefined] === true;
}

/**
 * Fastify's `rewriteUrl`: takes a `.csv` or `.json` suffix off the path (takeFormatSuffix), then
 * routes a predefined route as its operation's own path. The query string is kept as sent.
 */
export function rewriteUrl(raw: IncomingMessage): string {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  let path = takeFormatSuffix(raw, q === -1 ? url : url.slice(0, q), isOperationPath);
  const operation = predefinedOperation(path);
  if (operation) {
    (raw as RawRequest)[predefined] = true;
    path = operation.path;
  }
  return path + (q === -1 ? '' : url.slice(q));
}
