import { errorText, type ApiError } from '../contract/errors.js';
import { toCsv } from './csv.js';
import type { Format } from './reading.js';

/** A ResponseStatus body in the negotiated format, within the bounds of every refusal (contract/errors.ts). */
export function errorBody(format: Format, error: ApiError, stack?: string): string {
  return errorText(error, format === 'csv' ? (body) => toCsv(body) : JSON.stringify, stack);
}
