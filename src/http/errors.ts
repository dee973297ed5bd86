/**
 * The one error shape of the API: `{ ResponseStatus: { ErrorCode, Message, Errors } }`.
 * Handlers throw ApiError; every other failure is mapped to it in error-handler.ts.
 */
export interface FieldError {
  ErrorCode: string;
  FieldName: string;
  Message: string;
  Meta?: Record<string, string>;
}

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

export const badRequest = (errorCode: string, message: string, fieldName?: string) =>
  new ApiError(
    400,
    errorCode,
    message,
    fieldName ? [{ ErrorCode: errorCode, FieldName: fieldName, Message: message }] : [],
  );

/** A validation failure of one or more fields: code and message of the first, all listed. */
export const validationFailed = (errors: FieldError[]) =>
  new ApiError(400, errors[0].ErrorCode, errors[0].Message, errors);

export const unauthorized = (message = 'Authentication is required.') =>
  new ApiError(401, 'Unauthorized', message);

export const forbidden = (message = 'The caller is not allowed to perform this operation.') =>
  new ApiError(403, 'Forbidden', message);

export const notFound = (message: string) => new ApiError(404, 'NotFound', message);

export const conflict = (message: string) => new ApiError(409, 'Conflict', message);

/** "RebateCodeSign" → "Rebate Code Sign", as ServiceStack's validators name fields. */
export function displayName(fieldName: string): string {
  return fieldName
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}
