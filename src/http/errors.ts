import { Answered, type FieldError } from '../domain/refusals.js';

export { displayName, type FieldError } from '../domain/refusals.js';

/**
 * The one error shape of the API: `{ ResponseStatus: { ErrorCode, Message, Errors } }`.
 * ApiError is the HTTP layer's own refusal (credentials, roles, media types, rate limits),
 * with the status code and headers it needs; what a rule of the API refuses is a domain Refusal
 * (domain/refusals.ts). The error plugin's toApiError maps both, and every other failure.
 */
export interface ResponseStatus {
  ErrorCode: string;
  Message: string;
  StackTrace?: string;
  Errors: FieldError[];
  Meta?: Record<string, string>;
}

/**
 * The bounds of a refusal (docs/decisions.md, "Refusals are bounded"): whatever a request
 * holds, its answer lists at most MAX_FIELD_ERRORS field errors (then the Message says how
 * many more were left out), quotes at most an excerpt of anything it echoes, and is never
 * larger than MAX_ERROR_BODY_BYTES.
 */
export const MAX_FIELD_ERRORS = 100;
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The longest Message, and the longest FieldName or ErrorCode, in UTF-16 code units. */
const MAX_MESSAGE = 1000;
const MAX_NAME = 200;

/** `text` cut to at most `max` code units, marked with an ellipsis, never inside a surrogate pair. */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

const boundedError = (error: FieldError): FieldError => ({
  ...error,
  ErrorCode: excerpt(error.ErrorCode, MAX_NAME),
  FieldName: excerpt(error.FieldName, MAX_NAME),
  Message: excerpt(error.Message, MAX_MESSAGE),
});

/** The HTTP layer's refusal: an answer, so it takes no stack trace either (Answered). */
export class ApiError extends Answered {
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

  /**
   * The ResponseStatus of this error listing at most `limit` field errors, each cut to an
   * excerpt; the Message says how many were left out.
   */
  toResponseStatus(limit = MAX_FIELD_ERRORS): ResponseStatus {
    const left = this.errors.length - Math.min(limit, this.errors.length);
    const message = left > 0 ? `${this.message} ${left} more ${left === 1 ? 'error was' : 'errors were'} left out.` : this.message;
    return {
      ErrorCode: excerpt(this.errorCode, MAX_NAME),
      Message: excerpt(message, MAX_MESSAGE),
      Errors: this.errors.slice(0, limit).map(boundedError),
    };
  }
}

/** A request the HTTP layer cannot read (a body that does not parse in its format). */
export const badRequest = (errorCode: string, message: string) => new ApiError(400, errorCode, message);

export const unauthorized = (message = 'Authentication is required.') =>
  new ApiError(401, 'Unauthorized', message);

export const forbidden = (message = 'The caller is not allowed to perform this operation.') =>
  new ApiError(403, 'Forbidden', message);

/** The router's limit on one path parameter, in characters as sent (app.ts `maxParamLength`). */
export const MAX_PATH_PARAMETER = 200;

/** A path parameter over MAX_PATH_PARAMETER: the request's fault, as any other invalid one. */
export const pathParameterTooLong = () => new ApiError(400, 'Length', 'A path parameter is longer than the server accepts.');

/** A request whose connection closed before it was answered: the client left. */
export const clientGone = () => new ApiError(400, 'ClientClosedRequest', 'The client closed the connection before the answer.');
