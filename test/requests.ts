/**
 * Who calls, and how a test's request is put together: the tokens of the test secret, and
 * the request behind `TestApp.call` (see helper.ts), so that no test file builds its own.
 */
import type { InjectOptions } from 'fastify';
import { mintToken } from '../src/auth/token.js';
import { COMPANY_A } from './fixtures.js';

export const TEST_SECRET = 'test-secret-of-at-least-sixteen-chars';
export const WRITE = 'bookingsupplier-administrator-write';
export const READ = 'bookingsupplier-administrator-read';
export const SUPERADMIN = 'superadmin';

export function token(companyId: string, roles: string[] = [WRITE], expiresIn = '1h'): Promise<string> {
  return mintToken(TEST_SECRET, { companyId, roles, expiresIn });
}

export async function bearer(companyId: string, roles: string[] = [WRITE]) {
  return { authorization: `Bearer ${await token(companyId, roles)}` };
}

/**
 * Who makes a request: the roles of a test-secret token for the request's `company`, a JWT
 * the test made itself, or null for no Authorization header.
 */
export type Caller = readonly string[] | string | null;

export type Method = NonNullable<InjectOptions['method']>;

export interface CallOptions {
  /** the caller; the app's default caller when left out (buildTestApp's `as`, else the write role) */
  as?: Caller;
  /** the company of the caller's token (the app's default, company A unless buildTestApp says); not the request's CompanyId */
  company?: string;
  /** the body: an object is sent as JSON, a string or Buffer as it is (give its content-type in `headers`) */
  body?: unknown;
  /** a CSV body, sent as text/csv */
  csv?: string;
  /** headers sent as well, last: they may replace the Authorization or the content-type */
  headers?: Record<string, string>;
}

/** The Authorization header of a caller (none for null). */
export async function authorizationOf(caller: Caller, company = COMPANY_A): Promise<Record<string, string>> {
  if (caller === null) return {};
  if (typeof caller === 'string') return { authorization: `Bearer ${caller}` };
  return bearer(company, [...caller]);
}

/** The caller of a call that names none: the app's (see buildTestApp). */
export interface DefaultCaller {
  as: Caller;
  company: string;
}

/** The inject options of a call. */
export async function callRequest(method: Method, url: string, options: CallOptions, defaults: DefaultCaller): Promise<InjectOptions> {
  const { as = defaults.as, company = defaults.company, body, csv, headers } = options;
  if (body !== undefined && csv !== undefined) throw new Error(`${method} ${url}: a JSON body or a CSV body, not both`);
  const payload = csv ?? body;
  return {
    method,
    url,
    headers: { ...(await authorizationOf(as, company)), ...(csv !== undefined ? { 'content-type': 'text/csv' } : {}), ...headers },
    ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
  };
}
