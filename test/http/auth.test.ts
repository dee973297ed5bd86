import { SignJWT, UnsecuredJWT } from 'jose';
import t from 'tap';
import { COMPANY_A, COMPANY_B, baseData } from '../fixtures.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, bearer, buildTestApp, token } from '../helper.js';

// product-decisions §2: credentials and roles.

const secret = new TextEncoder().encode(TEST_SECRET);

t.test('no Authorization header on a secured operation is 401 Unauthorized', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'DELETE', url: '/tags/10' });
  t.equal(res.statusCode, 401);
  t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized');
});

t.test('a token that is not a Bearer JWT is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  for (const authorization of ['Basic abc', 'Bearer', 'Bearer not.a.jwt', `Token ${await token(COMPANY_A)}`]) {
    const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization } });
    t.equal(res.statusCode, 401, authorization.slice(0, 12));
  }
});

t.test('exp is enforced: an expired token is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const expired = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
    .sign(secret);
  const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${expired}` } });
  t.equal(res.statusCode, 401);
});

t.test('a token without exp is 401', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const noExp = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
  const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${noExp}` } });
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
    const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${jwt}` } });
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
  const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${jwt}` } });
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
  const call = async (jwt: string) =>
    (await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${jwt}` } })).statusCode;
  t.equal(await call(await sign('https://other.example', 'booking-api')), 401, 'wrong issuer');
  t.equal(await call(await sign('https://id.example', 'other')), 401, 'wrong audience');
  t.equal(await call(await sign('https://id.example', 'booking-api')), 200, 'right issuer and audience');
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
  const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: { authorization: `Bearer ${jwt}` } });
  t.equal(res.statusCode, 200);
});

t.test('a missing role is 403 where the operation declares 403', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const headers = await bearer(COMPANY_A, [READ]);
  const del = await api.inject({ method: 'DELETE', url: '/resource/1', headers });
  t.equal(del.statusCode, 403);
  t.equal(del.json().ResponseStatus.ErrorCode, 'Forbidden');
  const create = await api.inject({ method: 'POST', url: '/resourcetypes', headers, payload: { Name: 'Rooms' } });
  t.equal(create.statusCode, 403);
});

t.test('a missing role is 401 where the operation declares no 403', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'DELETE', url: '/tags/10', headers: await bearer(COMPANY_A, [READ]) });
  t.equal(res.statusCode, 401);
  t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized');
});

t.test('the read role may use BookingPrintoutQuery (its x-roles list it)', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/reports/booking/printout', headers: await bearer(COMPANY_A, [READ]) });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});

t.test('operations that only declare 401 accept an authenticated caller of any role', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/assistant/mcp/usage', headers: await bearer(COMPANY_A, []) });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});

t.test('authentication comes before body validation', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const unauthenticated = await api.inject({ method: 'POST', url: '/messages/templates', payload: { Name: 5 } });
  t.equal(unauthenticated.statusCode, 401);
  const badJson = await api.inject({
    method: 'POST',
    url: '/messages/templates',
    headers: { 'content-type': 'application/json' },
    payload: '{not json',
  });
  t.equal(badJson.statusCode, 401, 'even a body that is not JSON');
  const lowRole = await api.inject({
    method: 'POST',
    url: '/resourcetypes',
    headers: await bearer(COMPANY_A, [READ]),
    payload: { Name: '' },
  });
  t.equal(lowRole.statusCode, 403, 'roles before validation');
});

t.test('another company in the query is refused like a missing role', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const headers = await bearer(COMPANY_A);
  const tag = await api.inject({ method: 'DELETE', url: `/tags/20?CompanyId=${COMPANY_B}`, headers });
  t.equal(tag.statusCode, 401);
  const resource = await api.inject({ method: 'DELETE', url: `/resource/1?CompanyId=${COMPANY_B}`, headers });
  t.equal(resource.statusCode, 403);
  const row = await api.store.db.selectFrom('tags').select('active').where('id', '=', 20).executeTakeFirstOrThrow();
  t.equal(row.active, 1, 'the other company’s tag is untouched');
});

t.test('another company in the body is refused before validation', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'POST',
    url: '/resourcetypes',
    headers: await bearer(COMPANY_A),
    payload: { CompanyId: COMPANY_B, Name: '' },
  });
  t.equal(res.statusCode, 403);
});

t.test('the company is matched case-insensitively', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'DELETE',
    url: `/tags/10?CompanyId=${COMPANY_A.toUpperCase()}`,
    headers: await bearer(COMPANY_A),
  });
  t.equal(res.statusCode, 200);
});

t.test('an omitted or blank CompanyId uses the caller’s company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const headers = await bearer(COMPANY_A);
  t.equal((await api.inject({ method: 'DELETE', url: '/tags/10', headers })).statusCode, 200);
  t.equal((await api.inject({ method: 'DELETE', url: '/tags/11?CompanyId=', headers })).statusCode, 200);
});

t.test('superadmin may act on any company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'DELETE',
    url: `/tags/20?CompanyId=${COMPANY_B}`,
    headers: await bearer(COMPANY_A, [SUPERADMIN]),
  });
  t.equal(res.statusCode, 200);
  t.equal(res.json().CompanyId, COMPANY_B);
});

t.test('an Id that exists only in another company is 404, never its data', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'DELETE', url: '/tags/20', headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 404);
  t.notMatch(res.body, /Member/);
  const row = await api.store.db.selectFrom('tags').select('active').where('id', '=', 20).executeTakeFirstOrThrow();
  t.equal(row.active, 1);
});

t.test('CategoryQuery needs no credentials', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({ method: 'GET', url: '/categories' });
  t.equal(res.statusCode, 200);
});

t.test('GetRebateCodeBySign may name any company', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const res = await api.inject({
    method: 'GET',
    url: `/rebatecodes/getbysign?CompanyId=${COMPANY_B}&RebateCodeSign=NOPE&ServiceId=1&IncludeConnectedServices=false`,
    headers: await bearer(COMPANY_A, []),
  });
  t.not(res.statusCode, 401);
  t.not(res.statusCode, 403);
});
