import type { LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import type { TestApp } from './helper.js';
import type { CallOptions, Method } from './requests.js';
import { snapshot } from './snapshot.js';

/** The error body of every refusal (docs/decisions.md, "Wire format"). */
export interface ResponseStatus {
  ErrorCode: string;
  Message: string;
  Errors: Array<{ ErrorCode: string; FieldName: string; Message: string }>;
  StackTrace?: string;
}

/** What a refusal must be; each property left out is not checked. */
export interface Refusal {
  status: number;
  /** ResponseStatus.ErrorCode (with `errors`: the first error's code unless given) */
  code?: string;
  /** ResponseStatus.Message: equal to a string, or matching a RegExp */
  message?: string | RegExp;
  /** the FieldName of the first listed error */
  field?: string;
  /** exactly these [ErrorCode, FieldName] errors, in order (and the refusal leads with the first) */
  errors?: Array<[code: string, field: string]>;
  /** the refusal leads with its first listed error: the ErrorCode and Message are that error's */
  leads?: boolean;
  /** names the assertions */
  name?: string;
}

type Asserts = Pick<Test, 'equal' | 'match' | 'strictSame'>;

/** A 400 validation refusal listing exactly these [ErrorCode, FieldName] errors, in order. */
export const badRequest = (...errors: Array<[code: string, field: string]>): Refusal => ({ status: 400, errors });

/**
 * Checks a JSON refusal: its status, and a ResponseStatus of that ErrorCode, Message,
 * first FieldName or list of errors. Answers the ResponseStatus for further checks.
 */
export function expectRefusal(t: Asserts, response: LightMyRequestResponse, expected: Refusal): ResponseStatus {
  const { name } = expected;
  const at = (what: string) => (name ? `${name}: ${what}` : what);
  t.equal(response.statusCode, expected.status, name ?? `refused with ${expected.status}`);
  const status = response.json().ResponseStatus as ResponseStatus;
  t.match(status, { ErrorCode: String, Message: String, Errors: Array }, at('a ResponseStatus'));
  if (expected.code !== undefined) t.equal(status?.ErrorCode, expected.code, at('ErrorCode'));
  if (typeof expected.message === 'string') t.equal(status?.Message, expected.message, at('Message'));
  else if (expected.message) t.match(status?.Message, expected.message, at('Message'));
  if (expected.field !== undefined) t.equal(status?.Errors?.[0]?.FieldName, expected.field, at('FieldName'));
  if (expected.errors) t.strictSame(status?.Errors?.map((e) => [e.ErrorCode, e.FieldName]), expected.errors, at('Errors'));
  if (expected.leads || (expected.errors && expected.errors.length > 0)) {
    t.equal(status?.ErrorCode, status?.Errors?.[0]?.ErrorCode, at("the first error's ErrorCode"));
    t.equal(status?.Message, status?.Errors?.[0]?.Message, at("the first error's Message"));
  }
  return status;
}

/**
 * Makes a call (as `api.call` does) that must be refused, checks the refusal as expectRefusal
 * does, and that the store is as it was before (see snapshot.ts).
 */
export async function expectRefused(
  t: Asserts,
  api: Pick<TestApp, 'call' | 'store'>,
  method: Method,
  url: string,
  options: CallOptions,
  expected: Refusal,
): Promise<ResponseStatus> {
  const unchanged = await snapshot(api.store);
  const status = expectRefusal(t, await api.call(method, url, options), expected);
  await unchanged.assert(t, expected.name ? `${expected.name}: nothing changed` : 'nothing changed');
  return status;
}
