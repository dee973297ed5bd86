import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';
import t, { type Test } from 'tap';
import { currentKeys, openKey, resolveOauthSecret } from '../../src/auth/oauth-keys.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { deleteMcpGrant, findMcpGrant, insertMcpGrant, listMcpGrants, touchMcpGrant, type NewMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { consumeOauthPayload, listOauthKeys, oauthAdapter, storedId, sweepExpiredOauth } from '../../src/store/repositories/oauth.js';
import { engine, freshDatabase, testStore } from '../test-store.js';

// The authorization server's storage (docs/decisions.md, "Assistants sign in with OAuth") on
// the engine under test: oidc-provider's records, the grants, and the keys every node shares.

const SECRET = 'a-secret-every-node-shares';
const TIMES = { OAUTH_KEY_ROTATION_DAYS: 90, OAUTH_ACCESS_TOKEN_TTL_SECONDS: 3600 };
const DAY_MS = 86_400_000;

/** Two stores (two pools, or two SQLite connections) on one fresh database: two nodes. */
async function twoNodes(t: Test): Promise<[Store, Store]> {
  const database = await freshDatabase(engine === 'sqlite' ? `file:${join(t.testdir(), 'oauth.sqlite')}` : undefined);
  const first = await openStore(database.url);
  const second = await openStore(database.url);
  t.teardown(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });
  return [first, second];
}

const payloadRow = (store: Store, model: string, id: string) =>
  store.db.selectFrom('oauth_payloads').selectAll().where('model', '=', model).where('id', '=', storedId(model, id)).executeTakeFirst();

t.test(`the adapter stores, finds, replaces and destroys each model's records (${engine})`, async (t) => {
  const store = await testStore(t);
  const Adapter = oauthAdapter(store);
  const sessions = new Adapter('Session');
  const codes = new Adapter('AuthorizationCode');
  const payload = {
    jti: 'code-1', kind: 'AuthorizationCode', grantId: 'grant-1', accountId: 'sub-1', exp: 2_000_000_000, iat: 1_900_000_000,
    scope: 'bookings:read bookings:write', resource: ['https://api.example/mcp'], extra: { nested: { list: [1, 2.5, true, null, 'å ✓ "q"'] } },
  };
  await codes.upsert('code-1', payload, 60);
  t.strictSame(await codes.find('code-1'), payload, 'read back exactly as saved');
  t.equal(await sessions.find('code-1'), undefined, 'the same id of another model is another record');
  t.equal(await codes.find('unknown'), undefined);
  const row = await payloadRow(store, 'AuthorizationCode', 'code-1');
  t.equal(row?.grant_id, 'grant-1');
  t.equal(typeof row?.expires_at, 'number', 'bigint columns read as numbers');
  t.ok(Math.abs(Number(row!.expires_at) - (Date.now() + 60_000)) < 5_000, 'expires in 60 s');

  await sessions.upsert('session-1', { jti: 'session-1', uid: 'uid-1', accountId: 'sub-1', kind: 'Session' }, 600);
  t.match(await sessions.findByUid('uid-1'), { jti: 'session-1', accountId: 'sub-1' });
  t.equal(await sessions.findByUid('uid-2'), undefined);
  t.equal(await codes.findByUid('uid-1'), undefined, "another model's uid is not found");
  t.equal(await sessions.findByUserCode('ABCD-EFGH'), undefined, 'the device flow is off');
  await sessions.upsert('session-1', { jti: 'session-1', uid: 'uid-3', accountId: 'sub-2', kind: 'Session' }, 600);
  t.match(await sessions.findByUid('uid-3'), { accountId: 'sub-2' }, 'a save replaces the record');
  t.equal(await sessions.findByUid('uid-1'), undefined, 'and its uid');

  await new Adapter('Grant').upsert('grant-9', { accountId: 'sub-9' });
  t.equal((await payloadRow(store, 'Grant', 'grant-9'))?.expires_at, null, 'no expiresIn: never expires');
  t.match(await new Adapter('Grant').find('grant-9'), { accountId: 'sub-9' });

  await codes.destroy('code-1');
  t.equal(await codes.find('code-1'), undefined, 'destroyed');
  t.ok(await sessions.find('session-1'), 'the others stay');
});

t.test(`consume is atomic: the first consumption stays, a second or a save changes nothing (${engine})`, async (t) => {
  const [a, b] = await twoNodes(t);
  const codes = new (oauthAdapter(a))('AuthorizationCode');
  await codes.upsert('code-1', { jti: 'code-1', grantId: 'g' }, 60);
  const before = Math.floor(Date.now() / 1000);
  await codes.consume('code-1');
  const consumed = (await codes.find('code-1'))?.consumed as number;
  t.ok(consumed >= before - 1 && consumed <= Math.floor(Date.now() / 1000) + 1, `consumed ${consumed} (seconds)`);
  const first = (await payloadRow(a, 'AuthorizationCode', 'code-1'))?.consumed_at;
  await sleep(20);
  await codes.consume('code-1');
  t.equal((await payloadRow(a, 'AuthorizationCode', 'code-1'))?.consumed_at, first, 'a second consume keeps the first time');
  await codes.upsert('code-1', { jti: 'code-1', grantId: 'g', consumed: 1 }, 60);
  await codes.upsert('code-1', { jti: 'code-1', grantId: 'g' }, 60);
  t.equal((await payloadRow(a, 'AuthorizationCode', 'code-1'))?.consumed_at, first, 'saving again neither changes nor clears it');
  t.strictSame(await codes.find('code-1'), { jti: 'code-1', grantId: 'g', consumed });

  // Two nodes consume each of 20 codes at once: exactly one consumption changes each row.
  const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);
  for (const id of ids) await codes.upsert(id, { jti: id }, 60);
  const results = await Promise.all(ids.map((id) => Promise.all([consumeOauthPayload(a.db, 'AuthorizationCode', id), consumeOauthPayload(b.db, 'AuthorizationCode', id)])));
  t.strictSame(results.map((pair) => pair.filter(Boolean).length), ids.map(() => 1), 'one winner per code');
  t.notOk(await consumeOauthPayload(b.db, 'AuthorizationCode', 'race-0'), 'and later ones lose too');
  t.notOk(await consumeOauthPayload(a.db, 'AuthorizationCode', 'unknown'));
});

t.test(`expired records are not found; a sweep deletes them in bounded batches, with expired grants (${engine})`, async (t) => {
  const store = await testStore(t);
  const tokens = new (oauthAdapter(store))('AccessToken');
  const sessions = new (oauthAdapter(store))('Session');
  for (let i = 0; i < 5; i++) await tokens.upsert(`old-${i}`, { jti: `old-${i}` }, -1);
  await tokens.upsert('now', { jti: 'now' }, 0);
  await sessions.upsert('old-session', { jti: 'old-session', uid: 'u' }, -1);
  await tokens.upsert('live', { jti: 'live' }, 60);
  await tokens.upsert('forever', { jti: 'forever' });
  t.equal(await tokens.find('old-0'), undefined, 'past its time: not found');
  t.equal(await tokens.find('now'), undefined, 'at its time: not found');
  t.equal(await sessions.findByUid('u'), undefined, 'nor by uid');
  t.ok(await tokens.find('live'));
  t.ok(await tokens.find('forever'));

  const now = Date.now();
  for (let i = 0; i < 3; i++) await insertMcpGrant(store.db, grant(`old-grant-${i}`, { createdAt: now - 2000, expiresAt: now - 1000 }));
  await insertMcpGrant(store.db, grant('live-grant', { createdAt: now, expiresAt: now + DAY_MS }));
  const at = Date.now() + 1;
  t.equal(await sweepExpiredOauth(store, at, 4), 4, 'at most the limit');
  t.equal(await sweepExpiredOauth(store, at, 4), 4, 'payloads first, then grants with what is left');
  t.equal(await sweepExpiredOauth(store, at, 4), 2, 'a short batch: nothing more to sweep');
  t.equal(await sweepExpiredOauth(store, at, 4), 0);
  const left = await store.db.selectFrom('oauth_payloads').select(['model', 'id']).execute();
  t.strictSame(left.map((row) => row.id).sort(), ['forever', 'live'].map((id) => storedId(left[0].model, id)).sort());
  const grants = await store.db.selectFrom('mcp_grants').select('grant_id').execute();
  t.strictSame(grants.map((row) => row.grant_id), ['live-grant']);
});

t.test(`revokeByGrantId deletes that grant's records of that model alone (${engine})`, async (t) => {
  const store = await testStore(t);
  const Adapter = oauthAdapter(store);
  const access = new Adapter('AccessToken');
  const refresh = new Adapter('RefreshToken');
  await access.upsert('a1', { jti: 'a1', grantId: 'g1' }, 60);
  await access.upsert('a2', { jti: 'a2', grantId: 'g1' }, 60);
  await access.upsert('a3', { jti: 'a3', grantId: 'g2' }, 60);
  await refresh.upsert('r1', { jti: 'r1', grantId: 'g1' }, 60);
  await access.revokeByGrantId('g1');
  t.equal(await access.find('a1'), undefined);
  t.equal(await access.find('a2'), undefined);
  t.ok(await access.find('a3'), "another grant's token stays");
  t.ok(await refresh.find('r1'), "another model's record of the grant stays");
  await refresh.revokeByGrantId('g1');
  t.equal(await refresh.find('r1'), undefined);
});

t.test(`oidc-provider's own models save, find and consume through the adapter (${engine})`, async (t) => {
  const store = await testStore(t);
  const keys = await currentKeys(store, SECRET, TIMES);
  const provider = new Provider('http://127.0.0.1:3000', {
    adapter: oauthAdapter(store),
    jwks: { keys: keys.signing as never },
    cookies: { keys: keys.cookies },
    features: { devInteractions: { enabled: false } },
    ttl: { Grant: 3600 },
  });
  const grant = new provider.Grant({ accountId: 'sub-1', clientId: 'client-1' });
  grant.addResourceScope('http://127.0.0.1:3000/mcp', 'bookings:read');
  const grantId = await grant.save();
  t.strictSame((await provider.Grant.find(grantId))?.getResourceScope('http://127.0.0.1:3000/mcp'), 'bookings:read');
  const code = new provider.AuthorizationCode({ accountId: 'sub-1', grantId, scope: 'openid', redirectUri: 'http://127.0.0.1/cb', codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256' } as never);
  const value = await code.save();
  const found = await provider.AuthorizationCode.find(value);
  t.equal(found?.grantId, grantId);
  const consumed = async () => ((await provider.AuthorizationCode.find(value)) as { consumed?: number } | undefined)?.consumed;
  t.notOk(await consumed());
  await found!.consume();
  t.ok(await consumed(), 'found consumed');
});

function grant(grantId: string, rest: Partial<NewMcpGrant> = {}): NewMcpGrant {
  const now = Date.now();
  return {
    grantId, companyId: 'company-a', sub: 'person-1', clientId: 'https://assistant.example/client.json', clientOrigin: 'assistant.example',
    clientName: 'An assistant', scopes: ['bookings:read', 'bookings:write'], roles: ['Read', 'Write'], createdAt: now, expiresAt: now + DAY_MS, ...rest,
  };
}

t.test(`mcp_grants: insert, find, touch, list by company, delete (${engine})`, async (t) => {
  const store = await testStore(t);
  const now = Date.now();
  await insertMcpGrant(store.db, grant('g1', { createdAt: now - 3000, expiresAt: now + DAY_MS }));
  await insertMcpGrant(store.db, grant('g2', { createdAt: now - 2000, clientName: null, scopes: [], roles: [] }));
  await insertMcpGrant(store.db, grant('g3', { createdAt: now - 1000, companyId: 'company-b' }));
  await insertMcpGrant(store.db, grant('g4', { createdAt: now - 5000, expiresAt: now - 1 }));
  t.strictSame(await findMcpGrant(store.db, 'g1'), { ...grant('g1', { createdAt: now - 3000, expiresAt: now + DAY_MS }), lastUsedAt: null });
  t.match(await findMcpGrant(store.db, 'g2'), { clientName: null, scopes: [], roles: [] });
  t.equal(await findMcpGrant(store.db, 'g4'), undefined, 'past its time: not found');
  t.equal(await findMcpGrant(store.db, 'unknown'), undefined);
  t.ok(await touchMcpGrant(store.db, 'g1'));
  const used = (await findMcpGrant(store.db, 'g1'))!.lastUsedAt!;
  t.ok(Math.abs(used - Date.now()) < 5000, 'last used now');
  t.notOk(await touchMcpGrant(store.db, 'unknown'));
  t.strictSame((await listMcpGrants(store.db, 'company-a')).map((g) => g.grantId), ['g2', 'g1'], "the company's live grants, newest first");
  t.strictSame((await listMcpGrants(store.db, 'company-a', 1)).map((g) => g.grantId), ['g2'], 'at most the limit');
  t.ok(await deleteMcpGrant(store.db, 'g2'));
  t.notOk(await deleteMcpGrant(store.db, 'g2'));
  t.strictSame((await listMcpGrants(store.db, 'company-a')).map((g) => g.grantId), ['g1']);
  t.strictSame((await listMcpGrants(store.db, 'company-b')).map((g) => g.grantId), ['g3']);
});

t.test(`nodes that start together on a fresh store end with one key of each kind (${engine})`, async (t) => {
  const [a, b] = await twoNodes(t);
  const now = Date.now();
  const all = await Promise.all([currentKeys(a, SECRET, TIMES, now), currentKeys(b, SECRET, TIMES, now), currentKeys(a, SECRET, TIMES, now), currentKeys(b, SECRET, TIMES, now)]);
  for (const keys of all.slice(1)) t.strictSame(keys, all[0], 'every node uses the same keys');
  t.equal(all[0].signing.length, 1);
  t.equal(all[0].cookies.length, 1);
  const [jwk] = all[0].signing;
  t.match(jwk, { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: String, d: String }, 'a private ES256 JWK');
  t.strictSame((await listOauthKeys(a.db)).map((row) => [row.kind, row.generation]), [['cookie', 1], ['signing', 1]]);
  t.strictSame(await currentKeys(b, SECRET, TIMES, now + 1000), all[0], 'and keep them');
});

t.test(`keys are encrypted with OAUTH_SECRET; another secret opens none (${engine})`, async (t) => {
  const store = await testStore(t);
  const keys = await currentKeys(store, SECRET, TIMES);
  const rows = await listOauthKeys(store.db);
  const signing = rows.find((row) => row.kind === 'signing')!;
  const cookie = rows.find((row) => row.kind === 'cookie')!;
  for (const row of [signing, cookie]) {
    t.equal(row.key.split('.').length, 5, `${row.kind}: a compact JWE`);
    t.notMatch(row.key, keys.signing[0].d!);
    t.notMatch(row.key, keys.cookies[0]);
  }
  t.match(JSON.parse(Buffer.from(signing.key.split('.')[0], 'base64url').toString()), { alg: 'dir', enc: 'A256GCM' });
  t.strictSame(JSON.parse(await openKey(SECRET, signing)), keys.signing[0]);
  const refusal = (opening: Promise<unknown>) => opening.then(() => undefined, (err: unknown) => err);
  t.ok((await refusal(openKey('another-secret-of-16+', signing))) instanceof ConfigError, 'another secret does not open it');
  await t.rejects(currentKeys(store, 'another-secret-of-16+', TIMES), { message: /OAUTH_SECRET/ });
  t.ok((await refusal(openKey(SECRET, { ...signing, kind: 'cookie' }))) instanceof ConfigError, "a row's key does not open as another row's");
});

t.test(`rotation adds a generation; the old signing key verifies for a token's lifetime, then goes (${engine})`, async (t) => {
  const store = await testStore(t);
  const start = Date.now();
  const first = await currentKeys(store, SECRET, TIMES, start);
  const token = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'ES256', kid: first.signing[0].kid }).sign(await importJWK(first.signing[0]));
  t.strictSame(await currentKeys(store, SECRET, TIMES, start + 90 * DAY_MS - 1), first, 'no rotation before the period');

  const rotatedAt = start + 90 * DAY_MS;
  const second = await currentKeys(store, SECRET, TIMES, rotatedAt);
  t.equal(second.signing.length, 2);
  t.not(second.signing[0].kid, first.signing[0].kid, 'the new key signs');
  t.strictSame(second.signing[1], first.signing[0], 'the old one is still listed');
  t.strictSame(second.cookies, [second.cookies[0], first.cookies[0]], 'cookie keys: the new one first, the previous one kept');
  const publicKeys = (keys: JWK[]) => ({ keys: keys.map(({ d: _d, ...pub }) => pub) });
  t.ok(await jwtVerify(token, createLocalJWKSet(publicKeys(second.signing))), 'a token the old key signed verifies');

  const almost = await currentKeys(store, SECRET, TIMES, rotatedAt + 3600_000 - 1);
  t.equal(almost.signing.length, 2, 'kept until a token signed at the rotation expires');
  const later = await currentKeys(store, SECRET, TIMES, rotatedAt + 3600_000);
  t.strictSame(later.signing, [second.signing[0]], 'then left out');
  t.strictSame((await listOauthKeys(store.db)).filter((row) => row.kind === 'signing').map((row) => row.generation), [2], 'and deleted');
  t.strictSame(later.cookies, second.cookies);

  const third = await currentKeys(store, SECRET, TIMES, rotatedAt + 90 * DAY_MS);
  t.strictSame(third.cookies.slice(1), [second.cookies[0]], 'two cookie generations at most');
  t.strictSame((await listOauthKeys(store.db)).map((row) => [row.kind, row.generation]), [['cookie', 3], ['cookie', 2], ['cookie', 1], ['signing', 3], ['signing', 2]]);
});

t.test('resolveOauthSecret: the configured one; on SQLite one kept beside the file; in memory one per process; PostgreSQL must set it', async (t) => {
  const dir = t.testdir();
  const config = (env: Record<string, string>) => loadConfig(env, {});
  t.equal(resolveOauthSecret(config({ DATABASE_URL: 'file::memory:', OAUTH_SECRET: SECRET })), SECRET);
  const postgres = 'postgres://node@db.example/booking';
  t.equal(resolveOauthSecret(config({ DATABASE_URL: postgres, OAUTH_SECRET: SECRET })), SECRET);
  const thrown = (() => {
    try {
      resolveOauthSecret(config({ DATABASE_URL: postgres }));
    } catch (err) {
      return err;
    }
  })();
  t.ok(thrown instanceof ConfigError, 'PostgreSQL without it: a ConfigError');
  t.match(thrown, { message: /OAUTH_SECRET/ }, 'naming OAUTH_SECRET');

  const memory = config({ DATABASE_URL: 'file::memory:' });
  t.ok(resolveOauthSecret(memory).length >= 32);
  t.equal(resolveOauthSecret(memory), resolveOauthSecret(memory));

  const file = config({ DATABASE_URL: `file:${join(dir, 'nested', 'booking.sqlite')}` });
  const secret = resolveOauthSecret(file);
  const secretFile = join(dir, 'nested', '.oauth-secret');
  t.equal(readFileSync(secretFile, 'utf8').trim(), secret);
  t.equal(statSync(secretFile).mode & 0o777, 0o600, 'readable by its owner only');
  t.equal(resolveOauthSecret(file), secret, 'the same one next time');
  t.not(secret, resolveOauthSecret(memory));

  mkdirSync(join(dir, 'kept'));
  writeFileSync(join(dir, 'kept', '.oauth-secret'), 'written-by-another-node-1234\n');
  t.equal(resolveOauthSecret(config({ DATABASE_URL: `file:${join(dir, 'kept', 'b.sqlite')}` })), 'written-by-another-node-1234', 'one already there is used');
});

t.test(`a code's, a refresh token's and a session's id are stored as their SHA-256 alone (${engine})`, async (t) => {
  const store = await testStore(t);
  const Adapter = oauthAdapter(store);
  for (const model of ['AuthorizationCode', 'RefreshToken', 'Session']) await new Adapter(model).upsert('the-credential', { kind: model }, 60);
  await new Adapter('Grant').upsert('grant-1', { kind: 'Grant' }, 60);
  const ids = (await store.db.selectFrom('oauth_payloads').select(['model', 'id', 'payload']).execute()).map((row) => [row.model, row.id]);
  t.notOk(ids.some(([model, id]) => model !== 'Grant' && (id as string).includes('the-credential')), 'no credential is kept as it was sent');
  t.ok(ids.some(([model, id]) => model === 'Grant' && id === 'grant-1'), "a grant's id is no credential");
  t.ok(await new Adapter('RefreshToken').find('the-credential'), 'found by the token itself');
});

t.test(`a registered client unused for 30 days goes: each use moves its end on (${engine})`, async (t) => {
  const store = await testStore(t);
  const clients = new (oauthAdapter(store))('Client');
  await clients.upsert('client-1', { client_id: 'client-1' });
  const end = async () => Number((await payloadRow(store, 'Client', 'client-1'))!.expires_at);
  t.ok(Math.abs((await end()) - (Date.now() + 30 * DAY_MS)) < 60_000, 'kept 30 days from its registration');
  await store.db.updateTable('oauth_payloads').set({ expires_at: Date.now() + 1000 }).where('model', '=', 'Client').execute();
  t.ok(await clients.find('client-1'), 'used');
  t.ok((await end()) > Date.now() + 29 * DAY_MS, '30 days from its use');
  await store.db.updateTable('oauth_payloads').set({ expires_at: Date.now() - 1000 }).where('model', '=', 'Client').execute();
  t.equal(await clients.find('client-1'), undefined, 'unused 30 days: gone');
  t.equal(await sweepExpiredOauth(store, Date.now(), 10), 1, 'and swept');
});
