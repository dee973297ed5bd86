import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import t, { type Test as Tap } from 'tap';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { buildDemoData, DEMO_COMPANY_A as COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp, type TestApp } from '../helper.js';
import { READ, TEST_SECRET, WRITE } from '../requests.js';
import { action, Browser, field, form, MemoryProvider, signIn } from './oauth-client.js';

// An assistant signs in with OAuth (docs/decisions.md, "Assistants sign in with OAuth"): the
// MCP SDK's client, with its OAuth provider, goes from a bare 401 to a listed and called tool
// against a node with defaults and no PUBLIC_URL, by dynamic registration; a program stands in
// for the browser, pasting a sign-in token into the page and allowing on the consent page.

async function listening(t: Parameters<typeof buildTestApp>[0], config: NonNullable<Parameters<typeof buildTestApp>[1]>['config'] = {}): Promise<{ api: TestApp; origin: string }> {
  const api = await buildTestApp(t, { data: buildDemoData(), config });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  return { api, origin: `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}` };
}

t.test('the MCP SDK client: from a bare 401 to a called tool, by dynamic registration and a sign-in token', async (t) => {
  const { api, origin } = await listening(t);
  const mcp = new URL('/mcp', origin);
  const bare = await fetch(mcp, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  t.equal(bare.status, 401);
  t.equal(bare.headers.get('www-authenticate'), `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="booking.read booking.write"`);

  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError, 'the client is sent to sign in');
  t.ok(provider.client?.client_id, 'it registered itself');
  t.equal(provider.authorizationUrl?.searchParams.get('code_challenge_method'), 'S256');
  t.equal(provider.authorizationUrl?.searchParams.get('resource'), `${origin}/mcp`);

  const token = await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' });
  const callback = await signIn(t, origin, provider.authorizationUrl!, token);
  t.equal(callback.origin + callback.pathname, 'http://127.0.0.1:1/callback');
  t.equal(callback.searchParams.get('iss'), origin, 'RFC 9207: the issuer comes with the code');
  await transport.finishAuth(callback.searchParams);
  t.ok(provider.saved?.access_token && provider.saved.refresh_token, 'an access and a refresh token');

  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  t.ok(tools.some((tool) => tool.name === 'CreateResourceType'), 'the write tools are listed');
  const before = await usage(api);
  const result = await client.callTool({ name: 'BillingMethodQuery', arguments: {} });
  t.notOk(result.isError, 'the tool ran');
  t.ok((await usage(api)) > before, "the call is metered to the signed-in person's company");

  const rest = await fetch(new URL(`/billing/methods?CompanyId=${COMPANY_A}`, origin), { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
  t.equal(rest.status, 401, 'the REST API refuses an OAuth access token');
  const signInAsBearer = await fetch(new URL(`/billing/methods?CompanyId=${COMPANY_A}`, origin), { headers: { authorization: `Bearer ${token}` } });
  t.equal(signInAsBearer.status, 401, 'and a sign-in token');
});

t.test('scopes narrow roles: booking.read lists no write tool, and a write call is 403 insufficient_scope before JSON-RPC', async (t) => {
  const { origin } = await listening(t);
  const mcp = new URL('/mcp', origin);
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError);
  // The SDK asks for the scopes the 401 named; this assistant asks for reads alone.
  provider.authorizationUrl!.searchParams.set('scope', 'booking.read');
  const callback = await signIn(t, origin, provider.authorizationUrl!, await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' }));
  await transport.finishAuth(callback.searchParams);
  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  t.teardown(() => client.close());
  const { tools } = await client.listTools();
  t.notOk(tools.some((tool) => tool.name === 'CreateResourceType'), 'no write tool');
  t.ok(tools.some((tool) => tool.name === 'BillingMethodQuery'), 'the reads');
  const call = await fetch(mcp, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${provider.saved!.access_token}`, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'CreateResourceType', arguments: { Name: 'Boats' } } }),
  });
  t.equal(call.status, 403);
  t.match(call.headers.get('www-authenticate'), /^Bearer error="insufficient_scope", scope="booking.write"/);
  t.match(await call.json(), { ResponseStatus: { ErrorCode: 'Forbidden' } });
});

t.test('refused at sign-in: a bearer token, a sign-in token used twice, a superadmin; a read role gets no write scope', async (t) => {
  const { origin } = await listening(t);
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  await t.rejects(new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { authProvider: provider })));
  const page = async (token: string) => {
    const browser = new Browser();
    const { url, response } = await browser.follow(provider.authorizationUrl!.href, origin);
    const html = await response.text();
    return browser.follow(new URL(action(html)!, url).href, origin, form({ nonce: field(html, 'nonce')!, token }));
  };
  const { mintToken } = await import('../../src/auth/token.js');
  const bearer = await page(await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE] }));
  t.equal(bearer.response.status, 401);
  t.match(await bearer.response.text(), /not a valid sign-in token/);
  const once = await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [READ], sub: 'bo' });
  t.equal((await page(once)).response.status, 200, 'the first use signs in');
  const twice = await page(once);
  t.equal(twice.response.status, 401);
  t.match(await twice.response.text(), /used already/);
  const superadmin = await page(await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: ['superadmin'], sub: 'root' }));
  t.match(await superadmin.response.text(), /A superadmin cannot sign an assistant in/);
  // The page's nonce sent by a browser that holds the sign-in but not the page's cookie.
  const browser = new Browser();
  const { url, response } = await browser.follow(provider.authorizationUrl!.href, origin);
  const html = await response.text();
  browser.cookies.delete('oauth_nonce');
  const withoutCookie = await browser.go(new URL(action(html)!, url).href, form({ nonce: field(html, 'nonce')!, token: once }));
  t.equal(withoutCookie.status, 403, 'a nonce without its cookie is refused');
});

/** An assistant signed in by `sub`: its provider holds the tokens. */
async function signedIn(t: Tap, origin: string, sub: string): Promise<MemoryProvider> {
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError);
  const callback = await signIn(t, origin, provider.authorizationUrl!, await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub }));
  await transport.finishAuth(callback.searchParams);
  return provider;
}

t.test('rate limits count per grant: two assistants behind one address have a limit each', async (t) => {
  const { origin } = await listening(t, { RATE_LIMIT_MAX: 40 });
  const [first, second] = [await signedIn(t, origin, 'ada'), await signedIn(t, origin, 'bo')];
  const ping = (provider: MemoryProvider) =>
    fetch(new URL('/mcp', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${provider.saved!.access_token}`, 'mcp-protocol-version': '2025-11-25' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    }).then((res) => res.status);
  const statuses = [];
  for (let i = 0; i < 41; i++) statuses.push(await ping(first));
  t.equal(statuses.filter((status) => status === 200).length, 40, "the first grant's 40 calls");
  t.equal(statuses.at(-1), 429, 'then 429');
  t.equal(await ping(second), 200, "the second grant's calls count apart, from the same address");
});

t.test('failed sign-ins are limited per address, the page saying so; registrations too', async (t) => {
  const { origin } = await listening(t, { OAUTH_SIGN_IN_RATE_LIMIT_MAX: 2, OAUTH_REGISTRATION_RATE_LIMIT_MAX: 2 });
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  await t.rejects(new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { authProvider: provider })));
  const browser = new Browser();
  const { url, response } = await browser.follow(provider.authorizationUrl!.href, origin);
  const html = await response.text();
  const attempt = () => browser.go(new URL(action(html)!, url).href, form({ nonce: field(html, 'nonce')!, token: 'not a token' }));
  t.strictSame([(await attempt()).status, (await attempt()).status], [401, 401], 'two failures are told as such');
  const third = await attempt();
  t.equal(third.status, 429);
  t.match(await third.text(), /Too many failed sign-ins/);
  const register = () => fetch(new URL('/oauth/register', origin), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none' }) });
  t.equal((await register()).status, 201, 'the second registration from this address (the client above was the first)');
  t.equal((await register()).status, 429, 'the third is refused');
});

async function usage(api: TestApp): Promise<number> {
  const response = await api.call('GET', `/assistant/mcp/usage?CompanyId=${COMPANY_A}`, { as: ['superadmin'] });
  return (response.json() as { TokensUsed: number }).TokensUsed;
}
