import { toCsv } from './csv.js';
import { MAX_ERROR_BODY_BYTES, MAX_FIELD_ERRORS, type ApiError } from './errors.js';
import type { Format } from './reading.js';

/**
 * A ResponseStatus body in the negotiated format, within MAX_ERROR_BODY_BYTES: each listed
 * error is already an excerpt, and when even MAX_FIELD_ERRORS of them (escaped for JSON or
 * quoted for CSV) take more room, fewer are listed, the Message counting the rest.
 */
export function errorBody(format: Format, error: ApiError, stack?: string): string {
  const render = (limit: number) => {
    const ResponseStatus = { ...error.toResponseStatus(limit), ...(stack ? { StackTrace: stack } : {}) };
    return format === 'csv' ? toCsv({ ResponseStatus }) : JSON.stringify({ ResponseStatus });
  };
  let limit = MAX_FIELD_ERRORS;
  let body = render(limit);
  while (limit > 0 && Buffer.byteLength(body) > MAX_ERROR_BODY_BYTES) {
    limit = Math.floor(limit / 2);
    body = render(limit);
  }
  return body;
}
