import { SignJWT, UnsecuredJWT } from 'jose';
import t from 'tap';
import { contract, type OperationInfo } from '../contract-operations.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import { insertMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, buildTestApp, expectRefusal, snapshot, type TestApp } from '../helper.js';
import { callerRoles } from './fuzz-property.js';
import { encode, parametersOf } from './fuzz-requests.js';

// The authorization matrix: every operation of the contract × every kind of caller. The
// expected status is DERIVED from the contract (security, x-roles, 403 declared or not,
// x-any-company, a path Id) by `expectedStatus`, never written per operation. The calls
// themselves are chosen from the demo data so that an allowed call answers 200.

const ISSUER = 'https://id.example';
const AUDIENCE = 'booking-api';
const config = { AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE };
const secret = new TextEncoder().encode(TEST_SECRET);

type Company = 'A' | 'B';
const COMPANY: Record<Company, string> = { A: DEMO_COMPANY_A, B: DEMO_COMPANY_B };

/** One call of an operation on company `c`'s data, that succeeds when the caller may make it. */
interface Call {
  path?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

const PUBLIC_TARGET = 'https://93.184.216.34/hooks'; // a literal public address: no DNS lookup

const CALLS: Record<string, (c: Company) => Call> = {
  // Force: a resource with bookings is deactivated (200) rather than refused (409).
  DeleteResource: (c) => ({ path: { Id: c === 'A' ? 101 : 201 }, query: { Force: 'true' } }),
  CreateArticleRebateCode: (c) => ({ body: { ArticleId: c === 'A' ? 103 : 201, Customer: { Email: 'buyer@example.com' } } }),
  // B's gift card is connected to its customer Ola: the lookup names him.
  GetRebateCodeBySign: (c): Call =>
    c === 'A'
      ? { query: { RebateCodeSign: 'VALUE1000', ServiceId: '101', IncludeConnectedServices: 'true' } }
      : { query: { RebateCodeSign: 'Gift500', ServiceId: '201', IncludeConnectedServices: 'true', CustomerEmail: 'ola.nordmann@example.no' } },
  CreateRebateCodeTransaction: (c) => ({ body: { RebateCodeId: c === 'A' ? 101 : 201, Amount: 10, Usage: 0, ChangeType: 'Increase' } }),
  DeleteCustomField: (c) => ({ path: { Id: c === 'A' ? 101 : 201 } }),
  BookingPrintoutQuery: (c) => ({ query: { Id: c === 'A' ? '101' : '201' } }),
  CreateMessageTemplate: (c) => ({ body: { TypeId: 1, Name: 'Matrix', Title: 'Title', Body: 'Body', Services: [c === 'A' ? 101 : 201] } }),
  DeleteTag: (c) => ({ path: { Id: c === 'A' ? 101 : 201 } }),
  CreateResourceType: (c) => ({ body: { Name: 'Matrix', Resources: [{ Id: c === 'A' ? 101 : 201 }] } }),
  BillingMethodQuery: () => ({ query: { CountryId: 'SE' } }),
  CategoryQuery: () => ({}),
  GetMcpUsage: () => ({}),
  UpdateWebhookEndpoint: (c) => ({ path: { Id: c === 'A' ? 'wh_bookings' : 'wh_main' }, body: { Url: PUBLIC_TARGET, EventTypes: ['booking.created'] } }),
  WebhookEndpointMessageQuery: (c) => ({ path: { Id: c === 'A' ? 'wh_bookings' : 'wh_main' } }),
  McpGrantQuery: () => ({}),
  DeleteMcpGrant: (c) => ({ path: { Id: `grant-${c}` } }),
};

/** Rows a call needs that the demo data does not hold: assistants' grants are made by signing in, never imported. */
const SETUP: Partial<Record<string, (api: TestApp) => Promise<void>>> = {
  DeleteMcpGrant: async (api) => {
    for (const c of ['A', 'B'] as const) {
      const now = Date.now();
      await insertMcpGrant(api.store.db, {
        grantId: `grant-${c}`, companyId: COMPANY[c], sub: `person-${c}`, clientId: 'https://assistant.example/client.json',
        clientOrigin: 'assistant.example', clientName: 'Assistant', scopes: ['booking.read'], roles: [READ], createdAt: now, expiresAt: now + 86_400_000,
      });
    }
  },
};

type Credentials = 'valid' | 'none' | 'expired' | 'badSignature' | 'algNone' | 'wrongIssuer' | 'wrongAudience';

interface Case {
  name: string;
  credentials: Credentials;
  roles: string[];
  /** the company the request names in CompanyId (the token is always company A's) */
  names: Company;
  /** whose rows the request's ids are */
  rows: Company;
}

/** Where the operation takes a CompanyId, from the contract: a query parameter or a body member. */
function companyParameter(op: OperationInfo): { in: 'query' | 'body'; required: boolean } | undefined {
  const query = parametersOf(op).find((p) => p.in === 'query' && p.name === 'CompanyId');
  if (query) return { in: 'query', required: query.required === true };
  if (op.bodySchema?.properties?.CompanyId) return { in: 'body', required: (op.bodySchema.required ?? []).includes('CompanyId') };
  return undefined;
}

const hasPathId = (op: OperationInfo) => parametersOf(op).some((p) => p.in === 'path' && p.name === 'Id');

/** The cases that apply to an operation. */
function casesOf(op: OperationInfo): Case[] {
  const regular = callerRoles(op).length > 0 ? callerRoles(op) : [WRITE];
  const own = { names: 'A' as Company, rows: 'A' as Company };
  const cases: Case[] = [
    { name: 'no token', credentials: 'none', roles: regular, ...own },
    { name: 'expired token', credentials: 'expired', roles: regular, ...own },
    { name: 'bad signature', credentials: 'badSignature', roles: regular, ...own },
    { name: 'alg none', credentials: 'algNone', roles: regular, ...own },
    { name: 'wrong issuer', credentials: 'wrongIssuer', roles: regular, ...own },
    { name: 'wrong audience', credentials: 'wrongAudience', roles: regular, ...own },
    { name: 'write role alone', credentials: 'valid', roles: [WRITE], ...own },
    { name: 'read role alone', credentials: 'valid', roles: [READ], ...own },
    { name: 'superadmin role alone', credentials: 'valid', roles: [SUPERADMIN], ...own },
    { name: 'no role', credentials: 'valid', roles: [], ...own },
  ];
  if (companyParameter(op)) {
    cases.push({ name: "the other company's CompanyId", credentials: 'valid', roles: regular, names: 'B', rows: 'B' });
    cases.push({ name: 'superadmin naming the other company', credentials: 'valid', roles: [SUPERADMIN], names: 'B', rows: 'B' });
  }
  if (hasPathId(op)) cases.push({ name: "the other company's Id", credentials: 'valid', roles: regular, names: 'A', rows: 'B' });
  return cases;
}

/**
 * The status the contract implies: bad credentials → 401 on a secured operation; a role
 * outside x-roles, or another company named without superadmin (unless x-any-company) →
 * 403 where the operation declares 403, else 401; an Id of another company → 404; else 200.
 */
export function expectedStatus(op: OperationInfo, c: Case): number {
  if (!op.secured) return 200;
  if (c.credentials !== 'valid') return 401;
  const refusal = op.statuses.has(403) ? 403 : 401;
  if (op.roles.length > 0 && !c.roles.some((role) => op.roles.includes(role))) return refusal;
  if (c.names !== 'A' && !op.anyCompany && !c.roles.includes(SUPERADMIN)) return refusal;
  if (c.rows !== c.names) return 404;
  return 200;
}

const ERROR_CODES: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound' };

async function authorization(c: Case): Promise<Record<string, string>> {
  const claims = { company_id: DEMO_COMPANY_A, roles: c.roles };
  const sign = (options: { iss?: string; aud?: string; exp?: number | string; key?: Uint8Array } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(options.iss ?? ISSUER)
      .setAudience(options.aud ?? AUDIENCE)
      .setExpirationTime(options.exp ?? '1h')
      .sign(options.key ?? secret);
  const jwt = {
    none: undefined,
    valid: () => sign(),
    expired: () => sign({ exp: Math.floor(Date.now() / 1000) - 60 }),
    badSignature: () => sign({ key: new TextEncoder().encode('another-secret-of-enough-length') }),
    algNone: async () => new UnsecuredJWT(claims).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('1h').encode(),
    wrongIssuer: () => sign({ iss: 'https://other.example' }),
    wrongAudience: () => sign({ aud: 'another-api' }),
  }[c.credentials];
  return jwt ? { authorization: `Bearer ${await jwt()}` } : {};
}

/** The request of a case: the call on `rows`' data, naming `names` where the operation takes a CompanyId. */
function request(op: OperationInfo, c: Case) {
  const call = CALLS[op.operationId](c.rows);
  const where = companyParameter(op);
  const query = { ...call.query };
  let body = call.body;
  // The company is named when it is not the caller's own, or when the contract requires it.
  if (where && (c.names !== 'A' || where.required)) {
    if (where.in === 'query') query.CompanyId = COMPANY[c.names];
    else body = { ...body, CompanyId: COMPANY[c.names] };
  }
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(String(call.path?.[name])));
  const search = new URLSearchParams(query).toString();
  return { method: op.method as never, url: search ? `${path}?${search}` : path, ...(body ? { payload: body } : {}) };
}

t.test('every operation of the contract has a call in the matrix', async (t) => {
  t.same([...contract().operations.keys()].sort(), Object.keys(CALLS).sort());
});

for (const op of contract().operations.values()) {
  t.test(`${op.operationId}: authorization follows the contract`, async (t) => {
    // Refused cases share one app (and must leave its store as it was); an allowed call of a
    // deleting operation gets a fresh app, so that each allowed case finds its row.
    let shared: TestApp | undefined;
    const build = async () => {
      const api = await buildTestApp(t, { data: buildDemoData(), config });
      await SETUP[op.operationId]?.(api);
      return api;
    };
    const app = async (fresh: boolean) => (fresh ? build() : (shared ??= await build()));
    for (const c of casesOf(op)) {
      const expected = expectedStatus(op, c);
      const api = await app(expected === 200 && op.method === 'DELETE');
      const unchanged = expected === 200 ? undefined : await snapshot(api.store);
      const res = await api.inject({ ...request(op, c), headers: await authorization(c) });
      if (unchanged) {
        expectRefusal(t, res, { status: expected, code: ERROR_CODES[expected], name: `${c.name} → ${expected}` });
        await unchanged.assert(t, `${c.name}: nothing changed`);
      } else {
        t.equal(res.statusCode, expected, `${c.name} → ${expected}`);
        if (c.rows === 'B' && res.statusCode === 200) t.notMatch(res.body, DEMO_COMPANY_A, `${c.name}: the answer is about the other company`);
      }
    }
  });
}

t.test('the derivation: CategoryQuery is open, GetRebateCodeBySign any company, 403 only where declared', async (t) => {
  const ops = contract().operations;
  const base: Case = { name: '', credentials: 'valid', roles: [READ], names: 'A', rows: 'A' };
  t.equal(expectedStatus(ops.get('CategoryQuery')!, { ...base, credentials: 'none' }), 200);
  t.equal(expectedStatus(ops.get('GetRebateCodeBySign')!, { ...base, roles: [], names: 'B', rows: 'B' }), 200);
  t.equal(expectedStatus(ops.get('DeleteResource')!, base), 403);
  t.equal(expectedStatus(ops.get('DeleteTag')!, base), 401);
  t.equal(expectedStatus(ops.get('DeleteTag')!, { ...base, roles: [WRITE], rows: 'B' }), 404);
  t.equal(expectedStatus(ops.get('BookingPrintoutQuery')!, base), 200);
});
