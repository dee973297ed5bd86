import { Answered, Refusal, type FieldError, type RefusalKind } from '../domain/refusals.js';

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

/** The ErrorCode of each status the server answers with, where no more particular one is known: the one table. */
const ERROR_CODES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

export const errorCodeOf = (status: number): string => ERROR_CODES[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequest');

/** The status code of each kind of domain Refusal: the one place a refusal becomes a status. */
const REFUSAL_STATUS: Record<RefusalKind, number> = { validation: 400, notFound: 404, conflict: 409 };

export const fromRefusal = (refusal: Refusal) =>
  new ApiError(REFUSAL_STATUS[refusal.kind], refusal.errorCode, refusal.message, [...refusal.errors]);

/**
 * Any error as the answer it is, whichever layer raised it: an ApiError, a domain Refusal, or
 * an error that carries a status of the client's fault (4xx) or 503; undefined means
 * unexpected, a 500. The HTTP layer maps its framework's errors before it asks here.
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof Refusal) return fromRefusal(error);
  const { statusCode: status, message } = (error ?? {}) as { statusCode?: unknown; message?: unknown };
  if (typeof status !== 'number' || !((status >= 400 && status < 500) || status === 503)) return undefined;
  return new ApiError(status, errorCodeOf(status), typeof message === 'string' ? message : '');
}

/** A fault of the server, answered without its details and already logged where it happened. */
export class Unexpected extends ApiError {
  constructor(readonly fault: unknown) {
    super(500, 'InternalServerError', 'An unexpected error occurred.');
  }
}

/** A request whose connection closed before it was answered: the client left. */
export const clientGone = () => new ApiError(400, 'ClientClosedRequest', 'The client closed the connection before the answer.');

/** A ResponseStatus body, written as JSON unless the transport gives another notation. */
export type Render = (body: { ResponseStatus: ResponseStatus }) => string;

/**
 * A ResponseStatus body within MAX_ERROR_BODY_BYTES: each listed error is already an excerpt,
 * and when even MAX_FIELD_ERRORS of them (escaped for JSON, quoted for CSV) take more room,
 * fewer are listed, the Message counting the rest.
 */
export function errorText(error: ApiError, render: Render = JSON.stringify, stack?: string): string {
  const text = (limit: number) => render({ ResponseStatus: { ...error.toResponseStatus(limit), ...(stack ? { StackTrace: stack } : {}) } });
  let limit = MAX_FIELD_ERRORS;
  let body = text(limit);
  while (limit > 0 && Buffer.byteLength(body) > MAX_ERROR_BODY_BYTES) {
    limit = Math.floor(limit / 2);
    body = text(limit);
  }
  return body;
}
