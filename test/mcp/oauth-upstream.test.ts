import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import t, { type Test as Tap } from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { importData } from '../../src/import/import.js';
import { openStore, type Store } from '../../src/store/db.js';
import { buildDemoData, DEMO_COMPANY_A as COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp, TEST_SECRET, testConfig, token, WRITE } from '../helper.js';
import { freshDatabase } from '../test-store.js';
import { Browser, field, form, MemoryProvider } from './oauth-client.js';

// A company's own OpenID provider as the sign-in (docs/decisions.md, "Assistants sign in with
// OAuth"): a second oidc-provider on 127.0.0.1 stands in for it, with one confidential client,
// the node's. The MCP SDK's client goes from a 401 to a metered tool call, the person signing
// in at that provider (its development login and consent forms); a superadmin, a person of no
// company and a tampered answer are refused on a page, and nothing is issued.

const CLIENT_ID = 'booking-node';
const CLIENT_SECRET = 'the-node-secret-at-the-company-provider';
const CLIENT_CALLBACK = 'http://127.0.0.1:1/callback';
/** The people the company's provider knows, by login name, with the claims of their ID tokens. */
const PEOPLE: Record<string, Record<string, unknown>> = {
  ada: { company_id: COMPANY_A, roles: [WRITE] },
  root: { company_id: COMPANY_A, roles: ['superadmin'] },
  drifter: { roles: [WRITE] },
};

interface Setup {
  /** the nodes' balancer: PUBLIC_URL */
  origin: string;
  issuer: string;
  /** which node served each request through the balancer, and its path */
  served: Array<{ node: number; path: string }>;
  /** the token endpoint answers of the company's provider, ID and access tokens in them */
  issued: Array<Record<string, unknown>>;
  logs: string[];
  /** every row the nodes keep of OAuth, and of its grants, as text */
  stored(): Promise<string>;
  grants(): Promise<number>;
  usage(): Promise<number>;
}

/**
 * The company's provider and `nodes` nodes on one database behind a balancer on 127.0.0.1 (its
 * origin their PUBLIC_URL) that sends the provider's answer (the callback) to the last node
 * and every other request to the first: the callback reaches a node that started no sign-in.
 */
async function setUp(t: Tap, nodes = 1): Promise<Setup> {
  const closing: Array<() => Promise<unknown>> = [];
  t.teardown(async () => {
    for (const close of closing.reverse()) await close();
  });
  const listening = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  // The provider's port first (the nodes are configured with its issuer), then the nodes' (the client's redirect URI).
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const issuer = await listening(createServer((req, res) => handle(req, res)));
  const ports: number[] = [];
  const served: Setup['served'] = [];
  const origin = await listening(createServer((incoming, outgoing) => {
    const node = incoming.url!.startsWith('/oauth/upstream/callback') ? ports.length - 1 : 0;
    served.push({ node, path: incoming.url!.split('?')[0] });
    const proxied = forward({ host: '127.0.0.1', port: ports[node], method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  }));

  const dir = mkdtempSync(join(tmpdir(), 'booking-oauth-upstream-'));
  const database = await freshDatabase(`file:${join(dir, 'store.sqlite')}`);
  closing.push(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const logs: string[] = [];
  const logStream = new Writable({ write: (chunk, _encoding, done) => { logs.push(String(chunk)); done(); } });
  const config = testConfig({
    DATABASE_URL: database.url,
    PUBLIC_URL: origin,
    LOG_LEVEL: 'debug',
    OAUTH_UPSTREAM_ISSUER: issuer,
    OAUTH_UPSTREAM_CLIENT_ID: CLIENT_ID,
    OAUTH_UPSTREAM_CLIENT_SECRET: CLIENT_SECRET,
  });
  const stores: Store[] = [];
  for (let i = 0; i < nodes; i++) {
    const store = await openStore(database.url);
    stores.push(store);
    if (i === 0) await importData(store, buildDemoData());
    const app = await buildApp(config, { store, logStream });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closing.push(async () => {
      await app.close();
      await store.close();
    });
    ports.push((app.server.address() as AddressInfo).port);
  }

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${origin}/oauth/upstream/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'company-key', alg: 'RS256', use: 'sig' }] as never },
    cookies: { keys: ['a-cookie-key-of-the-company-provider'] },
    // Company and roles are no scope's: the node asks for them in the ID token with the claims parameter.
    claims: { openid: ['sub'], company_id: null, roles: null },
    features: { devInteractions: { enabled: true }, claimsParameter: { enabled: true } },
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, ...PEOPLE[sub] }) }),
  });
  const issued: Array<Record<string, unknown>> = [];
  provider.on('grant.success', (ctx) => issued.push(ctx.body as Record<string, unknown>));
  handle = provider.callback();

  const db = stores[0].db;
  const superadmin = { authorization: `Bearer ${await token(COMPANY_A, ['superadmin'])}` };
  return {
    origin,
    issuer,
    served,
    issued,
    logs,
    stored: async () => JSON.stringify([await db.selectFrom('oauth_payloads').selectAll().execute(), await db.selectFrom('mcp_grants').selectAll().execute()]),
    grants: async () => (await db.selectFrom('mcp_grants').selectAll().execute()).length,
    usage: async () => {
      const answer = await fetch(`${origin}/assistant/mcp/usage?CompanyId=${COMPANY_A}`, { headers: superadmin });
      return ((await answer.json()) as { TokensUsed: number }).TokensUsed;
    },
  };
}

/** A browser across origins: a cookie jar for each (the node and the provider use the same cookie names). */
class Browsers {
  jars = new Map<string, Browser>();
  jar(url: string): Browser {
    const origin = new URL(url).origin;
    if (!this.jars.has(origin)) this.jars.set(origin, new Browser());
    return this.jars.get(origin)!;
  }
  go(url: string, init?: RequestInit): Promise<Response> {
    return this.jar(url).go(url, init);
  }
  /** Follows redirects from `url` to a page, or to the first URL `stop` names. */
  async follow(url: string, init?: RequestInit, stop: (url: string) => boolean = () => false): Promise<{ url: string; response: Response }> {
    let response = await this.go(url, init);
    while (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location')!, url).href;
      if (stop(url)) return { url, response };
      response = await this.go(url);
    }
    return { url, response };
  }
}

const formAction = (html: string) => /<form[^>]*action="([^"]*)"/.exec(html)?.[1];

/** An assistant sent to sign in: its provider holds the authorization URL, its transport finishes. */
async function assistant(t: Tap, origin: string) {
  const provider = new MemoryProvider(CLIENT_CALLBACK);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError, 'the client is sent to sign in');
  return { provider, transport };
}

/** The person at the company's provider: its login form with `login`, then its consent; answers where the provider sends the browser then. */
async function atProvider(browser: Browsers, setup: Setup, url: string, login: string): Promise<{ url: string; response: Response }> {
  let at = await browser.follow(url);
  for (const prompt of ['login', 'consent']) {
    const html = await at.response.text();
    if (!new RegExp(`name="prompt" value="${prompt}"`).test(html)) throw new Error(`no ${prompt} form at the provider: ${html.slice(0, 300)}`);
    const values: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
    at = await browser.follow(new URL(formAction(html)!, at.url).href, form(values), (next) => !next.startsWith(setup.issuer));
    if (!at.url.startsWith(setup.issuer)) return at;
  }
  throw new Error('the provider sent the browser nowhere');
}

t.test('the MCP SDK client signs in at the company’s OpenID provider, its answer reaching another node, and calls a tool metered to the company its ID token names', async (t) => {
  const setup = await setUp(t, 2);
  const { provider, transport } = await assistant(t, setup.origin);
  const browser = new Browsers();

  // The node's sign-in page sends the browser to the company's provider, the checks sealed in a cookie for the callback.
  const sent = await browser.follow(provider.authorizationUrl!.href, undefined, (url) => url.startsWith(setup.issuer));
  t.equal(sent.response.status, 303, 'the login interaction redirects');
  const upstream = new URL(sent.url);
  t.equal(upstream.origin + upstream.pathname, `${setup.issuer}/auth`);
  t.match(Object.fromEntries(upstream.searchParams), {
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: `${setup.origin}/oauth/upstream/callback`,
    code_challenge_method: 'S256',
    code_challenge: /^[\w-]{43}$/,
    state: /^[\w-]{43}$/,
    nonce: /^[\w-]{43}$/,
  });
  t.same(JSON.parse(upstream.searchParams.get('claims')!), { id_token: { company_id: null, roles: null } }, 'company and roles asked for in the ID token');
  const sealed = sent.response.headers.getSetCookie().find((line) => line.startsWith('oauth_upstream='));
  t.match(sealed, /; Path=\/oauth\/upstream\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/, 'a short-lived HttpOnly cookie for the callback alone');
  t.notMatch(sealed, upstream.searchParams.get('state')!, 'the state in it is sealed');

  const back = await atProvider(browser, setup, sent.url, 'ada');
  t.equal(back.url.split('?')[0], `${setup.origin}/oauth/upstream/callback`, "back at the node's callback");
  const consent = await browser.follow(back.url);
  const html = await consent.response.text();
  t.equal(consent.response.status, 200);
  t.match(html, /Allow access\?/, "the node's consent page");
  t.match(html, /act as <strong>ada<\/strong> for company <code>[^<]*<\/code>/);
  t.match(html, COMPANY_A, 'the company of the ID token');
  t.notOk(browser.jar(setup.origin).cookies.get('oauth_upstream'), 'the sealed checks are spent');
  const nodeOf = (path: RegExp) => setup.served.filter((request) => path.test(request.path)).map((request) => request.node);
  t.same(nodeOf(/^\/oauth\/interaction\//), [0, 0], 'the sign-in (sent to the provider) and the consent page on the first node');
  t.same(nodeOf(/^\/oauth\/upstream\/callback$/), [1], "the provider's answer on the second");

  const done = await browser.follow(new URL(formAction(html)!, consent.url).href, form({ nonce: field(html, 'nonce')!, decision: 'allow' }), (url) => url.startsWith(CLIENT_CALLBACK));
  const callback = new URL(done.url);
  t.ok(callback.searchParams.get('code'), 'a code for the assistant');
  await transport.finishAuth(callback.searchParams);
  t.ok(provider.saved?.access_token && provider.saved.refresh_token, 'an access and a refresh token');

  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', setup.origin), { authProvider: provider }));
  t.teardown(() => client.close());
  const before = await setup.usage();
  const result = await client.callTool({ name: 'BillingMethodQuery', arguments: {} });
  t.notOk(result.isError, 'the tool ran');
  t.ok((await setup.usage()) > before, "the call is metered to the company of the provider's ID token");
  t.equal(await setup.grants(), 1, 'one grant');

  // Neither of the provider's tokens is kept or logged.
  t.equal(setup.issued.length, 1, 'the node exchanged one code at the provider');
  const { id_token: idToken, access_token: accessToken } = setup.issued[0] as { id_token: string; access_token: string };
  t.ok(idToken && accessToken, 'for an ID token and an access token');
  const stored = await setup.stored();
  const logged = setup.logs.join('');
  t.ok(logged.length > 0, 'the node logged');
  for (const [name, value] of [['ID token', idToken], ['access token', accessToken], ['ID token signature', idToken.split('.')[2]]]) {
    t.notOk(stored.includes(value), `the ${name} is not in the store`);
    t.notOk(logged.includes(value), `the ${name} is not in the log`);
  }
});

t.test('refused at the callback, each on a page with the reason and nothing issued: a superadmin, a person of no company, a tampered answer', async (t) => {
  const setup = await setUp(t);
  const { provider } = await assistant(t, setup.origin);
  const refused = async (login: string, tamper?: (url: URL) => void) => {
    const browser = new Browsers();
    const sent = await browser.follow(provider.authorizationUrl!.href, undefined, (url) => url.startsWith(setup.issuer));
    const back = new URL((await atProvider(browser, setup, sent.url, login)).url);
    tamper?.(back);
    const page = await browser.go(back.href);
    return { status: page.status, html: await page.text(), location: page.headers.get('location') };
  };

  const superadmin = await refused('root');
  t.equal(superadmin.status, 403);
  t.match(superadmin.html, /A superadmin cannot sign an assistant in/);
  const nobody = await refused('drifter');
  t.equal(nobody.status, 403);
  t.match(nobody.html, /names no company/);
  const tampered = await refused('ada', (url) => url.searchParams.set('state', 'not-the-state-this-browser-was-given'));
  t.equal(tampered.status, 400);
  t.match(tampered.html, /does not belong to the sign-in this browser started/);
  for (const page of [superadmin, nobody, tampered]) {
    t.notMatch(page.html, /\bat .*\.(ts|js):\d+/, 'no stack trace');
    t.equal(page.location, null, 'no redirect');
  }
  t.equal(setup.issued.length, 2, 'the provider issued for the superadmin and for the person of no company; the tampered answer was never exchanged');
  t.equal(await setup.grants(), 0, 'no grant');
  t.notMatch(await setup.stored(), /"model":"(AuthorizationCode|AccessToken|RefreshToken)"/, 'no code and no token of the node');

  // A callback without the sealed checks (another browser, or the same answer again) is refused too.
  const replay = await fetch(`${setup.origin}/oauth/upstream/callback?code=x&state=y`, { redirect: 'manual' });
  t.equal(replay.status, 400);
  t.match(await replay.text(), /expired or was finished/);
});

t.test('with a company provider the sign-in page takes no sign-in token', async (t) => {
  const setup = await setUp(t);
  const { provider } = await assistant(t, setup.origin);
  const browser = new Browsers();
  const sent = await browser.follow(provider.authorizationUrl!.href, undefined, (url) => url.startsWith(setup.issuer));
  const interaction = new URL(sent.response.url).pathname;
  const { mintSignInToken } = await import('../../src/auth/sign-in.js');
  const posted = await browser.go(`${setup.origin}${interaction}/sign-in`, form({ nonce: 'n', token: await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' }) }));
  t.equal(posted.status, 403);
  t.match(await posted.text(), /organisation’s sign-in, not with sign-in tokens/);
});

t.test('a company provider that cannot be reached: the sign-in page says so (502), and sends nobody anywhere', async (t) => {
  const api = await buildTestApp(t, { config: { OAUTH_UPSTREAM_ISSUER: 'http://127.0.0.1:1', OAUTH_UPSTREAM_CLIENT_ID: CLIENT_ID, OAUTH_UPSTREAM_CLIENT_SECRET: CLIENT_SECRET } });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  const { provider } = await assistant(t, origin);
  const { response } = await new Browsers().follow(provider.authorizationUrl!.href);
  t.equal(response.status, 502);
  t.match(await response.text(), /Your organisation’s sign-in cannot be reached just now/);
  t.notOk(response.headers.getSetCookie().some((line) => line.startsWith('oauth_upstream=')), 'no sealed checks');
});

t.test('OAUTH_UPSTREAM_*: all three or none, and an https issuer (http on a loopback host alone)', async (t) => {
  const all = { OAUTH_UPSTREAM_ISSUER: 'https://id.example.com/realms/acme', OAUTH_UPSTREAM_CLIENT_ID: 'booking', OAUTH_UPSTREAM_CLIENT_SECRET: 'secret' };
  t.ok(loadConfig(all, {}).OAUTH_UPSTREAM_ISSUER, 'all three');
  t.notOk(loadConfig({}, {}).OAUTH_UPSTREAM_ISSUER, 'none');
  t.throws(() => loadConfig({ OAUTH_UPSTREAM_ISSUER: all.OAUTH_UPSTREAM_ISSUER }, {}), /OAUTH_UPSTREAM_CLIENT_ID and OAUTH_UPSTREAM_CLIENT_SECRET missing/);
  t.throws(() => loadConfig({ ...all, OAUTH_UPSTREAM_CLIENT_SECRET: undefined }, {}), /OAUTH_UPSTREAM_CLIENT_SECRET missing/);
  t.throws(() => loadConfig({}, { OAUTH_UPSTREAM_CLIENT_ID: 'booking' }), /OAUTH_UPSTREAM_ISSUER and OAUTH_UPSTREAM_CLIENT_SECRET missing/);
  t.throws(() => loadConfig({ ...all, OAUTH_UPSTREAM_ISSUER: 'http://id.example.com' }, {}), /OAUTH_UPSTREAM_ISSUER must be https/);
  for (const issuer of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) t.ok(loadConfig({ ...all, OAUTH_UPSTREAM_ISSUER: issuer }, {}), `${issuer} (loopback)`);
  t.throws(() => loadConfig({ ...all, OAUTH_UPSTREAM_ISSUER: 'ftp://id.example.com' }, {}), /OAUTH_UPSTREAM_ISSUER/);
});
