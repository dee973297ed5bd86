import type { FieldError } from '../domain/refusals.js';

export { displayName, type FieldError } from '../domain/refusals.js';

/**
 * The one error shape of the API: `{ ResponseStatus: { ErrorCode, Message, Errors } }`.
 * ApiError is the HTTP layer's own refusal (credentials, roles, media types, rate limits),
 * with the status code and headers it needs; what the document refuses is a domain Refusal
 * (domain/refusals.ts). The error plugin's toApiError maps both, and every other failure.
 */
export interface ResponseStatus {
  ErrorCode: string;
  Message: string;
  StackTrace?: string;
  Errors: FieldError[];
  Meta?: Record<string, string>;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toResponseStatus(): ResponseStatus {
    return { ErrorCode: this.errorCode, Message: this.message, Errors: this.errors };
  }
}

/** A request the HTTP layer cannot read (a body that does not parse in its format). */
export const badRequest = (errorCode: string, message: string) => new ApiError(400, errorCode, message);

export const unauthorized = (message = 'Authentication is required.') =>
  new ApiError(401, 'Unauthorized', message);

export const forbidden = (message = 'The caller is not allowed to perform this operation.') =>
  new ApiError(403, 'Forbidden', message);
