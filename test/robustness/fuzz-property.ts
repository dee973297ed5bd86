import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, UnsecuredJWT } from 'jose';
import { SUPERADMIN } from '../../src/domain/caller.js';
import { mintToken } from '../../src/auth/token.js';
import type { OperationInfo } from '../contract-operations.js';
import { parseJsv } from '../../src/contract/jsv.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import { TEST_SECRET, buildTestApp, type TestApp } from '../helper.js';
import { stateDiff, storeState, type StoreState } from '../snapshot.js';
import { requestArbitrary, type AuthKey, type RequestSpec } from './fuzz-requests.js';

/**
 * The fuzz property, shared by test/robustness/fuzz.test.ts (a fixed seed, few runs) and
 * scripts/fuzz.ts (any seed, many runs). For each request of an operation:
 * - no 5xx;
 * - the response is one the contract allows for its status (the helper's inject checks it);
 * - every non-2xx carries a ResponseStatus with an ErrorCode and a Message (JSON or CSV);
 * - a refused (non-2xx) request changed no row of any table (digest of the whole store).
 * One app per operation, on the demo data set; the store state is read after each request.
 */

// ---- DNS: nothing the fuzz sends may reach the network ----

let dnsGuarded = false;
/**
 * Makes any name lookup of this process fail loudly. Saving a webhook endpoint resolves
 * nothing (docs/decisions.md, "Reference values"), so a lookup here would be a regression,
 * and it must not leave the machine: it surfaces as a 5xx, which the fuzz property reports.
 */
export function forbidDns(): void {
  if (dnsGuarded) return;
  const refuse = async (host: string) => {
    throw new Error(`the fuzz must not resolve ${host}`);
  };
  (dns.promises as { lookup: unknown }).lookup = refuse;
  (dns as { lookup: unknown }).lookup = (host: string, ...rest: unknown[]) => {
    const callback = rest.find((arg) => typeof arg === 'function') as ((err: Error) => void) | undefined;
    callback?.(new Error(`the fuzz must not resolve ${host}`));
  };
  syncBuiltinESMExports();
  dnsGuarded = true;
}

// ---- callers ----

const secret = new TextEncoder().encode(TEST_SECRET);

/** The roles a regular caller of `op` has: one role the operation accepts other than superadmin. */
export function callerRoles(op: OperationInfo): string[] {
  if (op.roles.length === 0) return [];
  return [op.roles.find((r) => r !== SUPERADMIN) ?? op.roles[0]];
}

export async function authHeaders(op: OperationInfo): Promise<Record<AuthKey, Record<string, string>>> {
  const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
  const claims = { company_id: DEMO_COMPANY_A, roles: callerRoles(op) };
  return {
    caller: bearer(await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: callerRoles(op) })),
    callerB: bearer(await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_B, roles: callerRoles(op) })),
    superadmin: bearer(await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [SUPERADMIN] })),
    noRole: bearer(await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [] })),
    none: {},
    expired: bearer(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(secret)),
    otherSecret: bearer(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode('another-secret-of-enough-length'))),
    algNone: bearer(new UnsecuredJWT(claims).setExpirationTime('1h').encode()),
    garbage: { authorization: 'Bearer not.a.jwt' },
  };
}

// ---- the target: one app per operation ----

export interface FuzzStats {
  requests: number;
  byStatus: Record<number, number>;
  /** valid requests sent, and how many of them were answered 2xx */
  valid: number;
  validOk: number;
  byKind: Record<string, Record<number, number>>;
}

export interface FuzzTarget {
  op: OperationInfo;
  api: TestApp;
  headers: Record<AuthKey, Record<string, string>>;
  /** the store as it was after the last request */
  state: StoreState;
  stats: FuzzStats;
}

export async function fuzzTarget(t: { teardown(fn: () => unknown): void }, op: OperationInfo): Promise<FuzzTarget> {
  forbidDns();
  const api = await buildTestApp(t, { data: buildDemoData() });
  return {
    op,
    api,
    headers: await authHeaders(op),
    state: await storeState(api.store),
    stats: { requests: 0, byStatus: {}, valid: 0, validOk: 0, byKind: {} },
  };
}

/** The ResponseStatus of an error response, read from JSON or from ServiceStack's CSV layout. */
export function responseStatusOf(response: LightMyRequestResponse): Record<string, unknown> | undefined {
  const type = String(response.headers['content-type'] ?? '');
  try {
    if (type.startsWith('application/json')) return response.json().ResponseStatus;
    if (type.startsWith('text/csv')) {
      const [header, row] = parse(response.body) as string[][];
      const at = header.indexOf('ResponseStatus');
      return at === -1 ? undefined : (parseJsv(row[at]) as Record<string, unknown>);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

const describe = (spec: RequestSpec) => {
  const payload = spec.payload === undefined ? '' : ` payload(${spec.payload.length}): ${String(spec.payload).slice(0, 300)}`;
  return `[${spec.kind}] ${spec.method} ${spec.url.slice(0, 300)} auth=${spec.auth} headers=${JSON.stringify(spec.headers).slice(0, 200)}${payload}`;
};

/** Sends one request and checks the four properties; throws what went wrong. */
export async function checkRequest(target: FuzzTarget, spec: RequestSpec): Promise<void> {
  const { api, stats } = target;
  const before = target.state;
  let response: LightMyRequestResponse;
  try {
    response = await api.inject({
      method: spec.method as never,
      url: spec.url,
      headers: { ...target.headers[spec.auth], ...spec.headers },
      ...(spec.payload !== undefined ? { payload: spec.payload } : {}),
    });
  } catch (err) {
    throw new Error(`${describe(spec)}\n→ ${(err as Error).message}`);
  }
  const status = response.statusCode;
  stats.requests++;
  stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
  const kind = (stats.byKind[spec.kind.split(' ')[0]] ??= {});
  kind[status] = (kind[status] ?? 0) + 1;
  if (spec.kind === 'valid') {
    stats.valid++;
    if (status < 300) stats.validOk++;
  }
  const fail = (why: string) => {
    throw new Error(`${describe(spec)}\n→ ${status}: ${why}\n${response.body.slice(0, 1000)}`);
  };
  if (status >= 500) fail('a 5xx');
  const after = await storeState(api.store);
  target.state = after;
  if (status < 300) return;
  if (spec.method !== 'HEAD') {
    const rs = responseStatusOf(response);
    if (!rs) fail('no ResponseStatus');
    if (typeof rs!.ErrorCode !== 'string' || rs!.ErrorCode === '') fail('ResponseStatus without an ErrorCode');
    if (typeof rs!.Message !== 'string' || rs!.Message === '') fail('ResponseStatus without a Message');
  }
  if (after.digest !== before.digest) fail(`a refused request changed the store:\n${stateDiff(before, after)}`);
}

export interface RunOptions {
  seed: number;
  numRuns: number;
  /** fast-check's path, to replay one failing case */
  path?: string;
}

/** Runs the property for the target's operation; fc.assert reports seed, path and counterexample. */
export async function fuzzOperation(target: FuzzTarget, options: RunOptions): Promise<FuzzStats> {
  await fc.assert(
    fc.asyncProperty(requestArbitrary(target.op), (spec) => checkRequest(target, spec)),
    { seed: options.seed, numRuns: options.numRuns, ...(options.path ? { path: options.path } : {}), endOnFailure: false },
  );
  return target.stats;
}
