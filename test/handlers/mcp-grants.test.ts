import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefused, type TestApp } from '../helper.js';
import { addMcpGrantTokens, insertMcpGrant, touchMcpGrant, type NewMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { oauthAdapter } from '../../src/store/repositories/oauth.js';
import { engine } from '../test-store.js';

// McpGrantQuery (GET /assistant/mcp/grants) and DeleteMcpGrant (DELETE /assistant/mcp/grants/{Id}):
// a company's administrators list the grants assistants hold at /mcp and revoke one. Grants are
// inserted through the repository here: the sign-in that makes them is test/mcp/oauth*.test.ts's.
// The tokens metered to a grant's calls are test/mcp/grant-metering.test.ts's.

const DAY_MS = 86_400_000;
const LIST = '/assistant/mcp/grants';

function grant(grantId: string, rest: Partial<NewMcpGrant> = {}): NewMcpGrant {
  const now = Date.now();
  return {
    grantId, companyId: COMPANY_A, sub: 'ada', clientId: 'https://assistant.example/client.json', clientOrigin: 'assistant.example',
    clientName: 'Assistant', scopes: ['booking.read', 'booking.write'], roles: [WRITE], createdAt: now, expiresAt: now + 90 * DAY_MS, ...rest,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Company A's grants g1 (the oldest, 1234 tokens) and g2 (no name, used, reads alone), B's g3, A's ended g4. */
async function grantsApp(t: Parameters<typeof buildTestApp>[0]): Promise<{ api: TestApp; grants: Record<string, NewMcpGrant> }> {
  const api = await buildTestApp(t);
  const now = Date.now();
  const grants = {
    g1: grant('g1', { createdAt: now - 3000 }),
    g2: grant('g2', { createdAt: now - 2000, clientName: null, scopes: ['booking.read'], roles: [READ], clientId: 'client-of-cli', clientOrigin: '127.0.0.1:5173', sub: 'bo' }),
    g3: grant('g3', { createdAt: now - 1000, companyId: COMPANY_B }),
    g4: grant('g4', { createdAt: now - 5000, expiresAt: now - 1 }),
  };
  for (const row of Object.values(grants)) await insertMcpGrant(api.store.db, row);
  await addMcpGrantTokens(api.store.db, 'g1', 1234);
  await touchMcpGrant(api.store.db, 'g2');
  return { api, grants };
}

/** oidc-provider's records of grants g1 and g2: each Grant, its refresh token, code and access token; a session and a client of none. */
async function providerRecords(api: TestApp): Promise<void> {
  const Adapter = oauthAdapter(api.store);
  for (const id of ['g1', 'g2']) {
    await new Adapter('Grant').upsert(id, { jti: id, kind: 'Grant', accountId: 'ada', clientId: 'client' }, 3600);
    await new Adapter('RefreshToken').upsert(`refresh-${id}`, { jti: `refresh-${id}`, kind: 'RefreshToken', grantId: id }, 3600);
    await new Adapter('AuthorizationCode').upsert(`code-${id}`, { jti: `code-${id}`, kind: 'AuthorizationCode', grantId: id }, 60);
    await new Adapter('AccessToken').upsert(`access-${id}`, { jti: `access-${id}`, kind: 'AccessToken', grantId: id }, 3600);
  }
  await new Adapter('Session').upsert('session-1', { jti: 'session-1', kind: 'Session', accountId: 'ada' }, 3600);
  await new Adapter('Client').upsert('client', { client_id: 'client' });
}

/** The provider's records that belong to grant `id`: its Grant and those naming it. */
const recordsOf = (api: TestApp, id: string) =>
  api.store.db
    .selectFrom('oauth_payloads')
    .select(['model'])
    .where((eb) => eb.or([eb('grant_id', '=', id), eb.and([eb('model', '=', 'Grant'), eb('id', '=', id)])]))
    .orderBy('model')
    .execute();

t.test(`McpGrantQuery lists the company's grants that have not ended, newest first, with what each is (${engine})`, async (t) => {
  const { api, grants } = await grantsApp(t);
  const res = await api.call('GET', LIST, { as: [READ] });
  t.equal(res.statusCode, 200);
  const body = res.json();
  const used = body.Results[0].LastUsedDate;
  t.ok(Math.abs(Date.parse(used) - Date.now()) < 60_000, 'g2 was used just now');
  t.strictSame(body, {
    Offset: 0,
    Total: 2,
    Results: [
      {
        Id: 'g2', ClientId: 'client-of-cli', ClientOrigin: '127.0.0.1:5173', Sub: 'bo', Scopes: ['booking.read'],
        CreatedDate: iso(grants.g2.createdAt), LastUsedDate: used, ExpiresDate: iso(grants.g2.expiresAt), TokensUsed: 0,
      },
      {
        Id: 'g1', ClientId: 'https://assistant.example/client.json', ClientOrigin: 'assistant.example', ClientName: 'Assistant', Sub: 'ada',
        Scopes: ['booking.read', 'booking.write'], CreatedDate: iso(grants.g1.createdAt), ExpiresDate: iso(grants.g1.expiresAt), TokensUsed: 1234,
      },
    ],
  }, "B's grant and A's ended one are not listed; a grant without a name or a use leaves those out");
  t.strictSame((await api.call('GET', LIST, { as: [WRITE] })).json().Total, 2, 'the write role lists them too');
});

t.test(`McpGrantQuery pages with Skip and Take; Total counts every grant listed; CSV (${engine})`, async (t) => {
  const { api } = await grantsApp(t);
  const page = (query: string) => api.call('GET', `${LIST}?${query}`, { as: [READ] }).then((res) => res.json());
  t.match(await page('Skip=1&Take=1'), { Offset: 1, Total: 2, Results: [{ Id: 'g1' }] });
  t.strictSame((await page('Skip=1&Take=1')).Results.length, 1);
  t.strictSame(await page('Take=0'), { Offset: 0, Total: 2, Results: [] });
  t.strictSame(await page('Skip=5'), { Offset: 5, Total: 2, Results: [] });
  const csv = await api.call('GET', `${LIST}.csv`, { as: [READ] });
  t.equal(csv.statusCode, 200);
  t.match(csv.headers['content-type'], /^text\/csv/);
  t.match(csv.body, /^Id,ClientId,ClientOrigin,ClientName,Sub,Scopes,CreatedDate,LastUsedDate,ExpiresDate,TokensUsed\r\n/, 'the columns of McpGrant');
  t.match(csv.body, /\r\ng1,.*,"\[booking\.read,booking\.write\]",.*,1234\r\n/, 'a row per grant, its scopes as JSV');
});

t.test(`McpGrantQuery: one company never sees another's grants (${engine})`, async (t) => {
  const { api } = await grantsApp(t);
  await expectRefused(t, api, 'GET', `${LIST}?CompanyId=${COMPANY_B}`, { as: [READ] }, { status: 403, code: 'Forbidden', name: "naming B's CompanyId" });
  await expectRefused(t, api, 'GET', LIST, { as: [] }, { status: 403, code: 'Forbidden', name: 'no administrator role' });
  await expectRefused(t, api, 'GET', LIST, { as: null }, { status: 401, code: 'Unauthorized', name: 'no credentials' });
  const ofB = await api.call('GET', LIST, { as: [READ], company: COMPANY_B });
  t.strictSame(ofB.json().Results.map((g: { Id: string }) => g.Id), ['g3'], "B's administrator sees B's grant alone");
  const superadmin = await api.call('GET', `${LIST}?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.strictSame(superadmin.json().Results.map((g: { Id: string }) => g.Id), ['g3'], 'a superadmin sees the company it names');
});

t.test(`DeleteMcpGrant revokes the grant and the provider's records of it; others stay (${engine})`, async (t) => {
  const { api, grants } = await grantsApp(t);
  await providerRecords(api);
  const others = await api.store.db.selectFrom('oauth_payloads').selectAll().where('model', 'in', ['Session', 'Client']).execute();
  t.equal((await recordsOf(api, 'g1')).length, 4, "g1's Grant, refresh token, code and access token are stored");

  const res = await api.call('DELETE', `${LIST}/g1`, { as: [WRITE] });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    Id: 'g1', ClientId: 'https://assistant.example/client.json', ClientOrigin: 'assistant.example', ClientName: 'Assistant', Sub: 'ada',
    Scopes: ['booking.read', 'booking.write'], CreatedDate: iso(grants.g1.createdAt), ExpiresDate: iso(grants.g1.expiresAt), TokensUsed: 1234,
  }, 'the grant as it was');
  t.notOk(await api.store.db.selectFrom('mcp_grants').select('grant_id').where('grant_id', '=', 'g1').executeTakeFirst(), 'its row is gone');
  t.strictSame(await recordsOf(api, 'g1'), [], 'so are its Grant, refresh token, code and access token');
  t.strictSame((await recordsOf(api, 'g2')).map((row) => row.model), ['AccessToken', 'AuthorizationCode', 'Grant', 'RefreshToken'], "another grant's records stay");
  t.strictSame(await api.store.db.selectFrom('oauth_payloads').selectAll().where('model', 'in', ['Session', 'Client']).execute(), others, 'sessions and clients stay');
  t.strictSame((await api.call('GET', LIST, { as: [READ] })).json().Results.map((g: { Id: string }) => g.Id), ['g2'], 'no longer listed');

  await expectRefused(t, api, 'DELETE', `${LIST}/g1`, { as: [WRITE] }, { status: 404, code: 'NotFound', message: 'Grant not found.', name: 'revoked already' });
});

t.test(`DeleteMcpGrant: the write role alone, and one company never revokes another's grant (${engine})`, async (t) => {
  const { api } = await grantsApp(t);
  await providerRecords(api);
  await expectRefused(t, api, 'DELETE', `${LIST}/g1`, { as: [READ] }, { status: 403, code: 'Forbidden', name: 'the read role' });
  await expectRefused(t, api, 'DELETE', `${LIST}/g1`, { as: null }, { status: 401, code: 'Unauthorized', name: 'no credentials' });
  await expectRefused(t, api, 'DELETE', `${LIST}/g3`, { as: [WRITE] }, { status: 404, code: 'NotFound', name: "B's grant, by A" });
  await expectRefused(t, api, 'DELETE', `${LIST}/g3?CompanyId=${COMPANY_B}`, { as: [WRITE] }, { status: 403, code: 'Forbidden', name: "naming B's CompanyId" });
  await expectRefused(t, api, 'DELETE', `${LIST}/g1`, { as: [WRITE], company: COMPANY_B }, { status: 404, code: 'NotFound', name: "A's grant, by B" });
  await expectRefused(t, api, 'DELETE', `${LIST}/g4`, { as: [WRITE] }, { status: 404, code: 'NotFound', name: 'an ended grant' });
  await expectRefused(t, api, 'DELETE', `${LIST}/nothing`, { as: [WRITE] }, { status: 404, code: 'NotFound', name: 'an unknown id' });
  await expectRefused(t, api, 'DELETE', `${LIST}/${'x'.repeat(101)}`, { as: [WRITE] }, { status: 400, name: 'an id over 100 characters' });

  const bySuperadmin = await api.call('DELETE', `${LIST}/g3?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.equal(bySuperadmin.statusCode, 200, 'a superadmin revokes the grant of the company it names');
  t.equal(bySuperadmin.json().Id, 'g3');
});

t.test(`DeleteMcpGrant sent again with its Idempotency-Key answers the revocation again (${engine})`, async (t) => {
  const { api } = await grantsApp(t);
  const headers = { 'idempotency-key': 'revoke-g1' };
  const first = await api.call('DELETE', `${LIST}/g1`, { as: [WRITE], headers });
  const again = await api.call('DELETE', `${LIST}/g1`, { as: [WRITE], headers });
  t.equal(first.statusCode, 200);
  t.equal(again.statusCode, 200, 'not a 404: the first answer');
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.strictSame(again.json(), first.json());
});
