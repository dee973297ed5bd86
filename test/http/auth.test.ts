import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, UnsecuredJWT } from 'jose';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { requireVerificationKey, resolveJwtSecret } from '../../src/auth/secret.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';
import { COMPANY_A, COMPANY_B, baseData } from '../fixtures.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, buildTestApp, expectRefusal, token } from '../helper.js';

// Credentials and roles (docs/decisions.md, "Credentials, roles and companies").

const secret = new TextEncoder().encode(TEST_SECRET);

t.test('no Authorization header on a secured operation is 401 Unauthorized', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  expectRefusal(t, await api.call('DELETE', '/tags/10', { as: null }), { status: 401, code: 'Unauthorized' });
});

t.test('a token that is not a Bearer JWT is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const authorization of ['Basic abc', 'Bearer', 'Bearer not.a.jwt', `Token ${await token(COMPANY_A)}`]) {
    const res = await api.call('DELETE', '/tags/10', { as: null, headers: { authorization } });
    t.equal(res.statusCode, 401, authorization.slice(0, 12));
  }
});

t.test('exp is enforced: an expired token is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const expired = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
    .sign(secret);
  const res = await api.call('DELETE', '/tags/10', { as: expired });
  t.equal(res.statusCode, 401);
});

t.test('a token without exp is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const noExp = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
  const res = await api.call('DELETE', '/tags/10', { as: noExp });
  t.equal(res.statusCode, 401);
});

t.test('alg none, other algorithms and other secrets are refused', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const claims = { company_id: COMPANY_A, roles: [WRITE] };
  const none = new UnsecuredJWT(claims).setExpirationTime('1h').encode();
  const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).setExpirationTime('1h').sign(secret);
  const otherSecret = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('another-secret-of-enough-length'));
  for (const [name, jwt] of Object.entries({ none, hs512, otherSecret })) {
    const res = await api.call('DELETE', '/tags/10', { as: jwt });
    t.equal(res.statusCode, 401, name);
  }
  const rows = await api.store.db.selectFrom('tags').select('active').where('id', '=', 10).executeTakeFirstOrThrow();
  t.equal(rows.active, 1, 'nothing changed');
});

t.test('the HMAC key is the UTF-8 bytes of AUTH_JWT_SECRET as given', async (t) => {
  const api = await buildTestApp(t, { data: baseData, config: { AUTH_JWT_SECRET: 'c2VjcmV0LXRoYXQtbG9va3MtYmFzZTY0' } });
  const jwt = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('c2VjcmV0LXRoYXQtbG9va3MtYmFzZTY0'));
  const res = await api.call('DELETE', '/tags/10', { as: jwt });
  t.equal(res.statusCode, 200);
});

t.test('issuer and audience are enforced when configured', async (t) => {
  const api = await buildTestApp(t, { data: baseData, config: { AUTH_ISSUER: 'https://id.example', AUTH_AUDIENCE: 'booking-api' } });
  const sign = (iss: string, aud: string) =>
    new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(iss)
      .setAudience(aud)
      .setExpirationTime('1h')
      .sign(secret);
  const cases: Array<[string, string, number, string]> = [
    ['https://other.example', 'booking-api', 401, 'wrong issuer'],
    ['https://id.example', 'other', 401, 'wrong audience'],
    ['https://id.example', 'booking-api', 200, 'right issuer and audience'],
  ];
  for (const [issuer, audience, status, name] of cases) {
    t.equal((await api.call('DELETE', '/tags/10', { as: await sign(issuer, audience) })).statusCode, status, name);
  }
});

t.test('role and company claims are read from configured dotted paths', async (t) => {
  const api = await buildTestApp(t, {
    data: baseData,
    config: { AUTH_ROLES_CLAIM: 'realm_access.roles', AUTH_COMPANY_CLAIM: 'org.company' },
  });
  const jwt = await new SignJWT({ realm_access: { roles: [WRITE] }, org: { company: COMPANY_A } })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(secret);
  const res = await api.call('DELETE', '/tags/10', { as: jwt });
  t.equal(res.statusCode, 200);
});

t.test('a missing role is 403 where the operation declares 403', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  expectRefusal(t, await api.call('DELETE', '/resource/1', { as: [READ] }), { status: 403, code: 'Forbidden' });
  const create = await api.call('POST', '/resourcetypes', { as: [READ], body: { Name: 'Rooms' } });
  t.equal(create.statusCode, 403);
});

t.test('a missing role is 401 where the operation declares no 403', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  expectRefusal(t, await api.call('DELETE', '/tags/10', { as: [READ] }), { status: 401, code: 'Unauthorized' });
});

t.test('the read role may use BookingPrintoutQuery (its x-roles list it)', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/reports/booking/printout', { as: [READ] });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});

t.test('operations that only declare 401 accept an authenticated caller of any role', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/assistant/mcp/usage', { as: [] });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});

t.test('authentication comes before body validation', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const unauthenticated = await api.call('POST', '/messages/templates', { as: null, body: { Name: 5 } });
  t.equal(unauthenticated.statusCode, 401);
  const badJson = await api.call('POST', '/messages/templates', { as: null, body: '{not json', headers: { 'content-type': 'application/json' } });
  t.equal(badJson.statusCode, 401, 'even a body that is not JSON');
  const lowRole = await api.call('POST', '/resourcetypes', { as: [READ], body: { Name: '' } });
  t.equal(lowRole.statusCode, 403, 'roles before validation');
});

t.test('another company in the query is refused like a missing role', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const tag = await api.call('DELETE', `/tags/20?CompanyId=${COMPANY_B}`);
  t.equal(tag.statusCode, 401);
  const resource = await api.call('DELETE', `/resource/1?CompanyId=${COMPANY_B}`);
  t.equal(resource.statusCode, 403);
  const row = await api.store.db.selectFrom('tags').select('active').where('id', '=', 20).executeTakeFirstOrThrow();
  t.equal(row.active, 1, 'the other company’s tag is untouched');
});

t.test('another company in the body is refused before validation', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('POST', '/resourcetypes', { body: { CompanyId: COMPANY_B, Name: '' } });
  t.equal(res.statusCode, 403);
});

t.test('the company is matched case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', `/tags/10?CompanyId=${COMPANY_A.toUpperCase()}`);
  t.equal(res.statusCode, 200);
});

t.test('an omitted or blank CompanyId uses the caller’s company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  t.equal((await api.call('DELETE', '/tags/10')).statusCode, 200);
  t.equal((await api.call('DELETE', '/tags/11?CompanyId=')).statusCode, 200);
});

t.test('superadmin may act on any company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', `/tags/20?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.equal(res.statusCode, 200);
  t.equal(res.json().CompanyId, COMPANY_B);
});

t.test('an Id that exists only in another company is 404, never its data', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('DELETE', '/tags/20');
  t.equal(res.statusCode, 404);
  t.notMatch(res.body, /Member/);
  const row = await api.store.db.selectFrom('tags').select('active').where('id', '=', 20).executeTakeFirstOrThrow();
  t.equal(row.active, 1);
});

t.test('CategoryQuery needs no credentials', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.call('GET', '/categories', { as: null });
  t.equal(res.statusCode, 200);
});

t.test('GetRebateCodeBySign may name any company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const url = `/rebatecodes/getbysign?CompanyId=${COMPANY_B}&RebateCodeSign=NOPE&ServiceId=1&IncludeConnectedServices=false`;
  const res = await api.call('GET', url, { as: [] });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});

// ---- where the HS256 secret comes from (docs/configuration.md, AUTH_JWT_SECRET) ----

const POSTGRES = 'postgres://booking@127.0.0.1:5432/booking';

/** The error `work` throws, or undefined. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err;
  }
  return undefined;
}

t.test('on PostgreSQL AUTH_JWT_SECRET or AUTH_JWKS_URL is required: no secret is generated', async (t) => {
  const bare = loadConfig({ DATABASE_URL: POSTGRES, LOG_LEVEL: 'silent' }, {});
  for (const err of [thrownBy(() => requireVerificationKey(bare)), thrownBy(() => resolveJwtSecret(bare))]) {
    t.ok(err instanceof ConfigError, 'a ConfigError');
    t.match((err as Error).message, /AUTH_JWT_SECRET.*AUTH_JWKS_URL.*PostgreSQL/);
  }
  // The app cannot be built without a way to verify tokens (an in-memory store stands in for the database).
  const store = await openStore('file::memory:');
  t.teardown(() => store.close());
  await t.rejects(buildApp(bare, { store }), { message: /AUTH_JWT_SECRET/ });

  const secret = 'a-secret-shared-by-every-node';
  t.equal(resolveJwtSecret(loadConfig({ DATABASE_URL: POSTGRES, AUTH_JWT_SECRET: secret }, {})), secret, 'the configured secret');
  t.equal(thrownBy(() => requireVerificationKey(loadConfig({ DATABASE_URL: POSTGRES, AUTH_JWKS_URL: 'https://id.example/jwks', AUTH_AUDIENCE: 'booking-api' }, {}))), undefined, 'or an identity provider');
});

t.test('on SQLite an unset secret is generated once, kept beside the database file (0600); in memory, one per process', async (t) => {
  const dir = t.testdir();
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'nested', 'booking.sqlite')}` }, {});
  const secret = resolveJwtSecret(config);
  t.ok(secret.length >= 32);
  const file = join(dir, 'nested', '.jwt-secret');
  t.equal(readFileSync(file, 'utf8').trim(), secret);
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only');
  t.equal(resolveJwtSecret(config), secret, 'the same secret next time');
  t.equal(requireVerificationKey(config), undefined, 'not required on SQLite');
  const memory = loadConfig({ DATABASE_URL: 'file::memory:' }, {});
  t.equal(resolveJwtSecret(memory), resolveJwtSecret(memory));
  t.equal(resolveJwtSecret(loadConfig({ DATABASE_URL: `file:${join(dir, 'b.sqlite')}`, AUTH_JWT_SECRET: TEST_SECRET }, {})), TEST_SECRET, 'a configured secret wins');
});
