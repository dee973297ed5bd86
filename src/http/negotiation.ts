import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

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
  // @fastify/accepts: the best of the two by the header's q-values and wildcards; JSON when there is none.
  const fromHeader = request.accepts().type(Object.keys(mediaTypes));
  if (typeof fromHeader !== 'string') throw notAcceptable('The Accept header allows neither application/json nor text/csv.');
  return mediaTypes[fromHeader];
}
