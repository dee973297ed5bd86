import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { sql } from 'kysely';
import t from 'tap';
import { currentKeys, resolveOauthSecret } from '../../src/auth/oauth-keys.js';
import { countTokens, Metering } from '../../src/mcp/metering.js';
import { TOKENS_META } from '../../src/mcp/server.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { openStore, type Store } from '../../src/store/db.js';
import { importData } from '../../src/import/import.js';
import { insertMcpGrant, type NewMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { READ, WRITE, buildTestApp, testConfig, type TestApp } from '../helper.js';
import { engine, freshDatabase } from '../test-store.js';
import { postMcp, rpcMessage } from './client.js';

// The tokens metered under a grant (docs/decisions.md, "The MCP server", Metering): a metered
// tool call whose caller holds an OAuth grant adds its tokens to the grant's row as well as to
// its company's usage, exactly once whatever runs beside it, and McpGrantQuery reports them.

const DAY_MS = 86_400_000;

function grant(grantId: string, rest: Partial<NewMcpGrant> = {}): NewMcpGrant {
  const now = Date.now();
  return {
    grantId, companyId: COMPANY_A, sub: 'ada', clientId: 'client-1', clientOrigin: 'assistant.example', clientName: 'Assistant',
    scopes: ['booking.read', 'booking.write'], roles: [WRITE], createdAt: now, expiresAt: now + 30 * DAY_MS, ...rest,
  };
}

/** The grant's tokens as stored; undefined when it has no row. */
async function grantTokens(store: Pick<Store, 'db'>, grantId: string): Promise<number | undefined> {
  const row = await store.db.selectFrom('mcp_grants').select('tokens_used').where('grant_id', '=', grantId).executeTakeFirst();
  return row && Number(row.tokens_used);
}

/** Every token a company has used, whenever. */
async function companyTokens(store: Pick<Store, 'db'>, companyId: string): Promise<number> {
  const row = await store.db.selectFrom('mcp_usage').select(sql<string | number | null>`sum(tokens_used)`.as('used')).where('company_id', '=', companyId).executeTakeFirst();
  return Number(row?.used ?? 0);
}

/** Two stores on one database of the engine under test (SQLite: a file), as two nodes have. */
async function twoNodes(t: Parameters<typeof buildTestApp>[0]): Promise<Store[]> {
  const dir = mkdtempSync(join(tmpdir(), 'booking-grant-metering-'));
  const database = await freshDatabase(`file:${join(dir, 'store.sqlite')}`);
  const stores = [await openStore(database.url), await openStore(database.url)];
  t.teardown(async () => {
    for (const store of stores) await store.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  await importData(stores[0], mcpUsageData(new Date()));
  return stores;
}

t.test(`concurrent metered calls on two nodes add each call's tokens to its grant once, and to its company (${engine})`, async (t) => {
  const stores = await twoNodes(t);
  const config = testConfig();
  const nodes = stores.map((store) => new Metering(store, config));
  await insertMcpGrant(stores[0].db, grant('g1'));
  await insertMcpGrant(stores[0].db, grant('g2'));
  await insertMcpGrant(stores[0].db, grant('g-of-b', { companyId: COMPANY_B }));
  const companyBefore = await companyTokens(stores[0], COMPANY_A);

  // Forty results of different lengths: three in four under a grant (g1 or g2), one in four with none.
  const texts = Array.from({ length: 40 }, (_, i) => JSON.stringify({ Results: Array.from({ length: 1 + (i % 7) }, (_, j) => ({ Id: j, Name: `item ${i}.${j}` })) }));
  const grantOf = (i: number) => [undefined, 'g1', 'g1', 'g2'][i % 4];
  const metered = await Promise.all(texts.map((text, i) => nodes[i % 2].meter(COMPANY_A, text, grantOf(i))));
  for (const [i, text] of texts.entries()) t.equal(metered[i], await countTokens(text), `call ${i}: its text's tokens`);
  const sumOf = (grantId: string | undefined) => metered.filter((_, i) => grantOf(i) === grantId).reduce((sum, n) => sum + n, 0);

  t.equal(await grantTokens(stores[1], 'g1'), sumOf('g1'), "g1: the tokens of its calls, each once");
  t.equal(await grantTokens(stores[1], 'g2'), sumOf('g2'), "g2: the tokens of its calls, each once");
  t.equal(await grantTokens(stores[1], 'g-of-b'), 0, "another company's grant: none");
  t.equal(await companyTokens(stores[1], COMPANY_A), companyBefore + metered.reduce((sum, n) => sum + n, 0), 'the company: every call, under a grant or not');
});

t.test(`a grant revoked before its call is metered: the company's usage is added, the grant has no row to add to (${engine})`, async (t) => {
  const [store] = await twoNodes(t);
  const metering = new Metering(store, testConfig());
  const before = await companyTokens(store, COMPANY_A);
  const tokens = await metering.meter(COMPANY_A, '{"Results":[]}', 'revoked-grant');
  t.ok(tokens > 0);
  t.equal(await companyTokens(store, COMPANY_A), before + tokens);
  t.equal(await grantTokens(store, 'revoked-grant'), undefined, 'no row made');
});

/**
 * An access token for /mcp as the node's authorization server issues one: ES256 with its current
 * signing key, `typ at+jwt`, its issuer and the MCP resource as audience (from the Protected
 * Resource Metadata), the person, the client, the grant and the scopes.
 */
async function accessToken(api: TestApp, claims: { sub: string; clientId: string; grantId: string; scope: string }): Promise<string> {
  const metadata = (await api.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).json();
  const [key] = (await currentKeys(api.store, resolveOauthSecret(api.config), api.config)).signing;
  return new SignJWT({ client_id: claims.clientId, grant_id: claims.grantId, scope: claims.scope })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
    .setIssuer(metadata.authorization_servers[0])
    .setAudience(metadata.resource)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime('5m')
    .setJti('access-token-1')
    .sign(await importJWK(key, 'ES256'));
}

t.test(`tool calls at /mcp under a grant: McpGrantQuery reports their metered tokens; revoking the grant ends its token at once (${engine})`, async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: DEMO_COMPANY_A });
  await insertMcpGrant(api.store.db, grant('g-live', { companyId: DEMO_COMPANY_A }));
  const token = await accessToken(api, { sub: 'ada', clientId: 'client-1', grantId: 'g-live', scope: 'booking.read booking.write' });
  const call = async (as: string | string[], name: string, args: Record<string, unknown> = {}) => {
    const response = await postMcp(api, 'tools/call', { name, arguments: args }, { as, company: DEMO_COMPANY_A });
    t.equal(response.statusCode, 200, `${name}: answered`);
    const { result } = rpcMessage(response);
    t.notOk(result?.isError, `${name}: ran`);
    return result?._meta?.[TOKENS_META] as number;
  };

  const metered = [await call(token, 'BillingMethodQuery', { CountryId: 'SE' }), await call(token, 'CategoryQuery', { Take: 2 }), await call(token, 'CreateResourceType', { Name: 'Boats' })];
  t.ok(metered.every((tokens) => tokens > 0), 'each call of the grant was metered');
  t.equal(await call(token, 'GetMcpUsage'), 0, 'GetMcpUsage is not metered, to the grant neither');
  t.ok((await call([WRITE], 'CategoryQuery')) > 0, "a call with the API's own token is metered to the company alone");

  const listed = (await api.call('GET', '/assistant/mcp/grants', { as: [READ] })).json().Results;
  t.match(listed, [{ Id: 'g-live', TokensUsed: metered.reduce((sum, n) => sum + n, 0) }], "the grant's tokens are its calls' tokens");

  const revoked = await api.call('DELETE', '/assistant/mcp/grants/g-live');
  t.equal(revoked.statusCode, 200);
  const after = await postMcp(api, 'tools/call', { name: 'CategoryQuery', arguments: {} }, { as: token });
  t.equal(after.statusCode, 401, "the grant's access token is refused from the next call on");
  t.strictSame((await api.call('GET', '/assistant/mcp/grants', { as: [READ] })).json().Results, [], 'and the grant is no longer listed');
});
