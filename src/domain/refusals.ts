/**
 * The one vocabulary of refusals. A rule answers FieldErrors (the API's shape, owned here);
 * a Refusal carries what kind of refusal it is and those errors. Handlers, repositories and
 * paging throw Refusals; the error plugin (plugins/errors.ts, toApiError) is the one place
 * that turns a kind into a status code and a Refusal into a ResponseStatus.
 */

/** One refused field, as ResponseStatus.Errors lists it. */
export interface FieldError {
  ErrorCode: string;
  FieldName: string;
  Message: string;
  Meta?: Record<string, string>;
}

/** "RebateCodeSign" → "Rebate Code Sign", as ServiceStack's validators name fields. */
export function displayName(fieldName: string): string {
  return fieldName
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

/**
 * A field path as a message names it, quoted: `Name` → 'Name', `EventTypes[3]` → 'Event
 * Types', `Receiver.CustomerId` → 'Receiver Customer Id'. A parent whose child already
 * starts with its name is not said twice: `Customer.CustomerId` → 'Customer Id'.
 */
export function label(path: string): string {
  const segments = path.replace(/\[\d+\]/g, '').split('.');
  const named = segments.filter((segment, i) => !segments[i + 1]?.startsWith(segment));
  return `'${displayName(named.join(''))}'`;
}

/** A message as written, or written around the field's label. */
export type Wording = string | ((label: string) => string);

/** The refusal of one field: `field` is its path in the request (FieldName). */
export const invalid = (code: string, field: string, message: Wording): FieldError => ({
  ErrorCode: code,
  FieldName: field,
  Message: typeof message === 'string' ? message : message(label(field)),
});

/** NotEmpty: "'Name' must not be empty." (`when`: "… must not be empty when …"). */
export const notEmpty = (field: string, when?: string): FieldError =>
  invalid('NotEmpty', field, (name) => `${name} must not be empty${when ? ` when ${when}` : ''}.`);

/** Length: a text longer than `max` characters (`entered`: how long it is). */
export const tooLong = (field: string, max: number, entered: number): FieldError =>
  invalid('Length', field, (name) => `The length of ${name} must be ${max} characters or fewer. You entered ${entered} characters.`);

/** Email: not an e-mail address. */
export const notEmail = (field: string): FieldError =>
  invalid('Email', field, (name) => `${name} is not a valid email address.`);

/** An id that names nothing of the company's: "'Booking Id' must be a booking of the company." */
export const notOfCompany = (code: string, field: string, what: string): FieldError =>
  invalid(code, field, (name) => `${name} must be ${what} of the company.`);

/** What kind of refusal: the request's content (validation), an unknown target, a state that forbids it. */
export type RefusalKind = 'validation' | 'notFound' | 'conflict';

/**
 * An Error that takes no stack trace: a refusal is an answer to the request, not a fault of the
 * server, and nothing logs where it was thrown, while V8 walks the stack for every Error it
 * makes, a share of a refused request that the bench shows (bench/results.md).
 */
export class Answered extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** A refused request: thrown by handlers, repositories and paging; answered by the error plugin. */
export class Refusal extends Answered {
  constructor(
    readonly kind: RefusalKind,
    readonly errorCode: string,
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** One or more refused fields (at least one): the first one's code and message lead, all are listed. */
export function refused(errors: FieldError | readonly FieldError[]): Refusal {
  const all = 'ErrorCode' in errors ? [errors] : errors;
  return new Refusal('validation', all[0].ErrorCode, all[0].Message, all);
}

/** Throws the refusal of `errors` when there are any. */
export function refuseAny(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw refused(errors);
}

export const notFound = (message: string): Refusal => new Refusal('notFound', 'NotFound', message);

/** The row a lookup found, or a 404 saying what was not. */
export function found<T>(row: T | undefined, message: string): T {
  if (row === undefined) throw notFound(message);
  return row;
}

export const conflict = (message: string): Refusal => new Refusal('conflict', 'Conflict', message);
