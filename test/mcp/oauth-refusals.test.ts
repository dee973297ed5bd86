import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import t, { type Test as Tap } from 'tap';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { mintToken } from '../../src/auth/token.js';
import { COMPANY_A } from '../fixtures.js';
import { buildTestApp, type TestApp } from '../helper.js';
import { TEST_SECRET, WRITE } from '../requests.js';
import { action, Browser, field, form } from './oauth-client.js';

// What the authorization server refuses (docs/decisions.md, "Assistants sign in with OAuth"),
// each over real HTTP against a listening node: the error OAuth names, and nothing issued.

const CALLBACK = 'http://127.0.0.1:1/callback';

async function listening(t: Tap, config: Record<string, unknown> = {}): Promise<{ api: TestApp; origin: string }> {
  const api = await buildTestApp(t, { config });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  return { api, origin: `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}` };
}

/** A request with a Host of our choosing (fetch sends the URL's own). */
function withHost(origin: string, path: string, host: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, origin), { method, headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject).end();
  });
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function register(origin: string, redirectUris: string[] = [CALLBACK]): Promise<Response> {
  return fetch(`${origin}/oauth/register`, json({ client_name: 'Test Assistant', redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }));
}

async function clientOf(origin: string): Promise<string> {
  return ((await (await register(origin)).json()) as { client_id: string }).client_id;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An authorization request as the MCP SDK makes it, with `params` changed (undefined: left out). */
function authorizeUrl(origin: string, clientId: string, challenge: string, params: Record<string, string | undefined> = {}): URL {
  const url = new URL('/oauth/authorize', origin);
  const all = { response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, state: 'st4te', scope: 'booking.read booking.write', resource: `${origin}/mcp`, code_challenge: challenge, code_challenge_method: 'S256', ...params };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

/** Where the authorization server sends the browser straight away (an error before any page). */
async function redirectOf(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  return new URL(response.headers.get('location') ?? 'about:blank', url);
}

/** The person signs in with a fresh sign-in token and answers the consent page; answers the redirect to the client. */
async function consent(origin: string, url: URL, decision = 'allow'): Promise<URL> {
  const browser = new Browser();
  const token = await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' });
  let page = await browser.follow(url.href, origin);
  let html = await page.response.text();
  page = await browser.follow(new URL(action(html)!, page.url).href, origin, form({ nonce: field(html, 'nonce')!, token }));
  html = await page.response.text();
  page = await browser.follow(new URL(action(html)!, page.url).href, origin, form({ nonce: field(html, 'nonce')!, decision }));
  return new URL(page.url);
}

/** A registered client, signed in and allowed: its code, verifier and redirect. */
async function codeFor(origin: string, params: Record<string, string> = {}) {
  const clientId = await clientOf(origin);
  const { verifier, challenge } = pkce();
  const callback = await consent(origin, authorizeUrl(origin, clientId, challenge, params));
  return { clientId, verifier, code: callback.searchParams.get('code')!, redirectUri: params.redirect_uri ?? CALLBACK };
}

interface TokenAnswer { status: number; body: { error?: string; access_token?: string; refresh_token?: string } }

async function token(origin: string, params: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${origin}/oauth/token`, form(params));
  return { status: response.status, body: (await response.json()) as TokenAnswer['body'] };
}

const redeem = (origin: string, c: Awaited<ReturnType<typeof codeFor>>, verifier = c.verifier) =>
  token(origin, { grant_type: 'authorization_code', client_id: c.clientId, code: c.code, code_verifier: verifier, redirect_uri: c.redirectUri });

const refresh = (origin: string, clientId: string, refreshToken: string) => token(origin, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });

/** A JSON-RPC ping at /mcp with this bearer token: its status. */
async function mcpStatus(origin: string, bearer: string): Promise<number> {
  const response = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bearer}`, 'mcp-protocol-version': '2025-11-25' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  await response.body?.cancel();
  return response.status;
}

const refused = (t: Tap, answer: TokenAnswer, error: string, what: string) => {
  t.equal(answer.status, 400, what);
  t.equal(answer.body.error, error, `${what}: ${error}`);
  t.notOk(answer.body.access_token ?? answer.body.refresh_token, `${what}: no token issued`);
};

const payloads = (api: TestApp, model: string) => api.store.db.selectFrom('oauth_payloads').select('id').where('model', '=', model).execute();

t.test('PKCE: no code_challenge and the plain method are invalid_request with no code; a wrong code_verifier is invalid_grant', async (t) => {
  const { api, origin } = await listening(t);
  const clientId = await clientOf(origin);
  for (const [what, params] of [['no code_challenge', { code_challenge: undefined, code_challenge_method: undefined }], ['plain', { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }]] as const) {
    const back = await redirectOf(authorizeUrl(origin, clientId, '', params));
    t.equal(back.origin + back.pathname, CALLBACK, `${what}: sent back to the client`);
    t.equal(back.searchParams.get('error'), 'invalid_request', `${what}: invalid_request`);
    t.equal(back.searchParams.get('state'), 'st4te');
    t.notOk(back.searchParams.has('code'), `${what}: no code`);
  }
  t.same(await payloads(api, 'AuthorizationCode'), [], 'no code stored');
  const issued = await codeFor(origin);
  refused(t, await redeem(origin, issued, pkce().verifier), 'invalid_grant', 'a wrong code_verifier');
  t.same(await payloads(api, 'RefreshToken'), [], 'no refresh token stored');
});

t.test('a code redeemed twice is invalid_grant, and what its first redemption issued is revoked', async (t) => {
  const { api, origin } = await listening(t);
  const issued = await codeFor(origin);
  const first = await redeem(origin, issued);
  t.equal(first.status, 200, 'the first redemption');
  t.equal(await mcpStatus(origin, first.body.access_token!), 200, 'its access token works');
  refused(t, await redeem(origin, issued), 'invalid_grant', 'the second redemption');
  refused(t, await refresh(origin, issued.clientId, first.body.refresh_token!), 'invalid_grant', "the first redemption's refresh token");
  t.same(await payloads(api, 'Grant'), [], "the authorization server's grant is gone");
  t.equal(await mcpStatus(origin, first.body.access_token!), 401, "the first redemption's access token is refused at /mcp");
});

t.test('an expired code is invalid_grant', async (t) => {
  const { api, origin } = await listening(t);
  const issued = await codeFor(origin);
  // The code lives 60 s: its row is made to have expired a second ago.
  const { numUpdatedRows } = await api.store.db.updateTable('oauth_payloads').set({ expires_at: Date.now() - 1000 }).where('model', '=', 'AuthorizationCode').executeTakeFirst();
  t.equal(Number(numUpdatedRows), 1, 'the code was stored');
  refused(t, await redeem(origin, issued), 'invalid_grant', 'the expired code');
});

t.test('redirects: an unregistered redirect_uri is refused on a page, never redirected to', async (t) => {
  const { origin } = await listening(t);
  const clientId = await clientOf(origin);
  for (const uri of ['https://attacker.example/cb', 'http://127.0.0.1:1/elsewhere']) {
    const response = await fetch(authorizeUrl(origin, clientId, pkce().challenge, { redirect_uri: uri }), { redirect: 'manual' });
    t.equal(response.status, 400, uri);
    t.equal(response.headers.get('location'), null, `${uri}: no redirect`);
    t.match(response.headers.get('content-type'), /^text\/html/, `${uri}: a page`);
    t.match(await response.text(), /redirect_uri/, `${uri}: which says why`);
  }
});

t.test('registration refuses javascript:, data: and non-loopback http redirect URIs', async (t) => {
  const { api, origin } = await listening(t);
  for (const [uri, why] of [['javascript:alert(1)', /javascript: redirect URIs are refused/], ['data:text/html,x', /data: redirect URIs are refused/], ['http://example.com/cb', /must point at this machine/]] as const) {
    const response = await register(origin, [uri]);
    t.equal(response.status, 400, uri);
    t.match((await response.json()) as object, { error: /^(invalid_redirect_uri|invalid_client_metadata)$/, error_description: why }, `${uri}: refused, saying why`);
  }
  t.same(await payloads(api, 'Client'), [], 'no client stored');
});

t.test('a loopback redirect registered with one port is accepted on another (RFC 8252)', async (t) => {
  const { origin } = await listening(t);
  const issued = await codeFor(origin, { redirect_uri: 'http://127.0.0.1:54321/callback' });
  t.ok(issued.code, 'a code sent to the other port');
  const answer = await redeem(origin, issued);
  t.equal(answer.status, 200, 'and redeemed with that redirect_uri');
  t.ok(answer.body.access_token);
});

t.test('a resource other than <issuer>/mcp is invalid_target', async (t) => {
  const { origin } = await listening(t);
  const clientId = await clientOf(origin);
  for (const resource of ['https://other.example/mcp', `${origin}/billing`]) {
    const back = await redirectOf(authorizeUrl(origin, clientId, pkce().challenge, { resource }));
    t.equal(back.origin + back.pathname, CALLBACK, resource);
    t.equal(back.searchParams.get('error'), 'invalid_target', `${resource}: invalid_target`);
    t.notOk(back.searchParams.has('code'));
  }
});

t.test('consent denied: the client gets access_denied with state and iss, and no code', async (t) => {
  const { api, origin } = await listening(t);
  const clientId = await clientOf(origin);
  const back = await consent(origin, authorizeUrl(origin, clientId, pkce().challenge), 'deny');
  t.equal(back.origin + back.pathname, CALLBACK);
  t.equal(back.searchParams.get('error'), 'access_denied');
  t.equal(back.searchParams.get('state'), 'st4te');
  t.equal(back.searchParams.get('iss'), origin);
  t.notOk(back.searchParams.has('code'), 'no code');
  t.same(await api.store.db.selectFrom('mcp_grants').select('grant_id').execute(), [], 'no grant');
});

t.test('refresh: a refresh token rotates; sent again within 10 s it gets the same answer, later it is refused and revokes its grant', async (t) => {
  const { api, origin } = await listening(t);
  const issued = await codeFor(origin);
  const first = await redeem(origin, issued);
  const second = await refresh(origin, issued.clientId, first.body.refresh_token!);
  t.equal(second.status, 200, 'refreshed');
  t.ok(second.body.refresh_token && second.body.refresh_token !== first.body.refresh_token, 'with a new refresh token');
  const retried = await refresh(origin, issued.clientId, first.body.refresh_token!);
  t.equal(retried.status, 200, 'the same refresh again, at once (its answer was lost)');
  t.strictSame(retried.body, second.body, 'gets the same answer');
  const stranger = await refresh(origin, 'another-client', first.body.refresh_token!);
  t.strictSame([stranger.status, stranger.body.error, stranger.body.access_token], [401, 'invalid_client', undefined], 'but not for another client');
  // Ten seconds on: the kept answer is gone.
  await api.store.db.updateTable('oauth_payloads').set({ expires_at: 0 }).where('model', '=', 'RefreshAnswer').execute();
  refused(t, await refresh(origin, issued.clientId, first.body.refresh_token!), 'invalid_grant', 'the old refresh token, later');
  refused(t, await refresh(origin, issued.clientId, second.body.refresh_token!), 'invalid_grant', 'and its grant is revoked: the new one too');
});

t.test('a grant revoked by its refresh token at /oauth/revoke: its access token is refused at /mcp', async (t) => {
  const { api, origin } = await listening(t);
  const issued = await codeFor(origin);
  const { body } = await redeem(origin, issued);
  t.equal(await mcpStatus(origin, body.access_token!), 200, 'the access token works');
  const revoked = await fetch(`${origin}/oauth/revoke`, form({ token: body.refresh_token!, token_type_hint: 'refresh_token', client_id: issued.clientId }));
  t.equal(revoked.status, 200, 'revoked');
  refused(t, await refresh(origin, issued.clientId, body.refresh_token!), 'invalid_grant', 'the revoked refresh token');
  t.same(await payloads(api, 'Grant'), [], "the authorization server's grant is gone");
  t.equal(await mcpStatus(origin, body.access_token!), 401, 'the access token is refused at /mcp');
});

t.test('audiences: tokens meant for others are 401 at /mcp, and an OAuth access token is 401 at the REST API', async (t) => {
  const { origin } = await listening(t);
  const issued = await codeFor(origin);
  const { body } = await redeem(origin, issued);
  const claims = { client_id: issued.clientId, scope: 'booking.read booking.write', company_id: COMPANY_A, roles: [WRITE] };
  const { privateKey } = await generateKeyPair('ES256');
  const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' }).setIssuer(origin).setAudience(`${origin}/mcp`).setSubject('ada').setIssuedAt().setExpirationTime('1h').sign(privateKey);
  t.equal(await mcpStatus(origin, foreign), 401, 'an ES256 token of another key, for this resource');
  const apiSigned = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).setIssuer(origin).setAudience(`${origin}/mcp`).setSubject('ada').setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(TEST_SECRET));
  t.equal(await mcpStatus(origin, apiSigned), 401, "an at+jwt signed with the API's HS256 secret");
  t.equal(await mcpStatus(origin, await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' })), 401, 'a sign-in token');
  t.equal(await mcpStatus(origin, await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE] })), 200, "the API's own bearer token is taken");
  const rest = await fetch(`${origin}/billing/methods?CompanyId=${COMPANY_A}`, { headers: { authorization: `Bearer ${body.access_token}` } });
  t.equal(rest.status, 401, 'the OAuth access token at the REST API');
});

t.test('a Host that is not loopback, without PUBLIC_URL: no OAuth endpoint, and bearer tokens alone at /mcp', async (t) => {
  const { origin } = await listening(t);
  for (const path of ['/.well-known/oauth-authorization-server', '/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/jwks', '/oauth/revoke']) {
    t.equal((await withHost(origin, path, 'api.example.org')).status, 404, path);
  }
  const metadata = await withHost(origin, '/.well-known/oauth-protected-resource/mcp', 'api.example.org');
  t.equal(metadata.status, 200);
  t.match(JSON.parse(metadata.body), { resource: 'http://api.example.org/mcp' });
  t.notOk('authorization_servers' in JSON.parse(metadata.body), 'no authorization server named');
  t.notOk('scopes_supported' in JSON.parse(metadata.body), 'nor scopes');
  const challenge = await withHost(origin, '/mcp', 'api.example.org', 'POST');
  t.equal(challenge.status, 401);
  t.equal(challenge.headers['www-authenticate'], 'Bearer resource_metadata="http://api.example.org/.well-known/oauth-protected-resource/mcp"', 'a challenge naming no scope');
});

t.test("with PUBLIC_URL, the resource, the issuer and the issuer's endpoints are PUBLIC_URL's whatever the Host", async (t) => {
  const { origin } = await listening(t, { PUBLIC_URL: 'https://api.example.org' });
  for (const host of [new URL(origin).host, 'evil.example', 'localhost']) {
    const metadata = await withHost(origin, '/.well-known/oauth-protected-resource/mcp', host);
    t.match(JSON.parse(metadata.body), { resource: 'https://api.example.org/mcp', authorization_servers: ['https://api.example.org'] }, `Host ${host}`);
    const server = await withHost(origin, '/.well-known/oauth-authorization-server', host);
    const endpoints = { authorization_endpoint: '/oauth/authorize', token_endpoint: '/oauth/token', registration_endpoint: '/oauth/register', jwks_uri: '/oauth/jwks' };
    t.match(JSON.parse(server.body), { issuer: 'https://api.example.org', ...Object.fromEntries(Object.entries(endpoints).map(([k, path]) => [k, `https://api.example.org${path}`])) }, `Host ${host}: the issuer and its endpoints`);
  }
});

const ANY_ORIGIN = /^(\*|https:\/\/app\.example)$/;

t.test('discovery lists S256, public clients, client ID metadata documents and registration; CORS admits any origin', async (t) => {
  const { origin } = await listening(t);
  const response = await fetch(`${origin}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://app.example' } });
  t.match(response.headers.get('access-control-allow-origin'), ANY_ORIGIN, 'the metadata: any origin');
  t.match(await response.json(), {
    issuer: origin,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    registration_endpoint: `${origin}/oauth/register`,
  });
  const cross = { origin: 'https://app.example' };
  for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server']) {
    const preflight = await fetch(`${origin}${path}`, { method: 'OPTIONS', headers: { ...cross, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    t.ok(preflight.status >= 200 && preflight.status < 300, `${path}: the preflight succeeds (${preflight.status})`);
    t.match(preflight.headers.get('access-control-allow-origin'), ANY_ORIGIN, `${path}: preflight from any origin`);
  }
  const registered = await fetch(`${origin}/oauth/register`, { ...json({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }), headers: { 'content-type': 'application/json', ...cross } });
  t.equal(registered.status, 201);
  t.match(registered.headers.get('access-control-allow-origin'), ANY_ORIGIN, 'registration answers any origin');
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  for (const path of ['/oauth/token', '/oauth/revoke']) {
    const answer = await fetch(`${origin}${path}`, { ...form({ grant_type: 'refresh_token', refresh_token: 'nope', token: 'nope', client_id: clientId }), headers: { 'content-type': 'application/x-www-form-urlencoded', ...cross } });
    t.match(answer.headers.get('access-control-allow-origin'), ANY_ORIGIN, `${path}: answers any origin (${answer.status})`);
  }
});

t.test('a code redeemed twice at once: exactly one redemption gets tokens', async (t) => {
  const { origin } = await listening(t);
  const issued = await codeFor(origin);
  const answers = await Promise.all([redeem(origin, issued), redeem(origin, issued), redeem(origin, issued)]);
  t.equal(answers.filter((answer) => answer.status === 200).length, 1, 'one');
  t.ok(answers.filter((answer) => answer.status !== 200).every((answer) => answer.body.error === 'invalid_grant' && !answer.body.access_token), 'the others invalid_grant, with nothing issued');
});

t.test("the consent page names where this authorization's code goes, not the client's first redirect URI", async (t) => {
  const { origin } = await listening(t);
  const registered = await register(origin, ['https://assistant.example/callback', 'https://elsewhere.example/cb', 'cursor://anysphere.cursor-mcp/oauth/callback']);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  for (const [redirect, named, source] of [
    ['https://elsewhere.example/cb', 'elsewhere.example', 'https://elsewhere.example'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'cursor://anysphere.cursor-mcp', 'cursor:'],
  ]) {
    const browser = new Browser();
    const token = await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' });
    let page = await browser.follow(authorizeUrl(origin, clientId, pkce().challenge, { redirect_uri: redirect }).href, origin);
    const html = await page.response.text();
    page = await browser.follow(new URL(action(html)!, page.url).href, origin, form({ nonce: field(html, 'nonce')!, token }));
    const consentPage = await page.response.text();
    t.match(consentPage, `<strong>${named}</strong>`, `${redirect}: named as ${named}`);
    t.notMatch(consentPage, /assistant\.example/, 'not the first registered');
    t.match(page.response.headers.get('content-security-policy'), `form-action 'self' ${source}`, `${redirect}: the form may go on to ${source}`);
  }
});

t.test('a form field that is not text is refused with a 4xx, never a 5xx', async (t) => {
  const { origin } = await listening(t);
  const clientId = await clientOf(origin);
  const browser = new Browser();
  const page = await browser.follow(authorizeUrl(origin, clientId, pkce().challenge).href, origin);
  const html = await page.response.text();
  const nonce = field(html, 'nonce')!;
  const answer = await browser.go(new URL(action(html)!, page.url).href, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nonce, token: 1 }) });
  t.ok(answer.status >= 400 && answer.status < 500, `${answer.status}`);
});


t.test("the published callbacks of Claude, ChatGPT, VS Code and Cursor register; the OAuth endpoints keep X-Request-Id", async (t) => {
  const { origin } = await listening(t);
  for (const callback of [
    'https://claude.ai/api/mcp/auth_callback',
    'https://chatgpt.com/connector_platform_oauth_redirect',
    'http://127.0.0.1:33418',
    'https://vscode.dev/redirect',
    'cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback',
  ]) {
    const registered = await register(origin, [callback]);
    t.equal(registered.status, 201, callback);
    t.match(registered.headers.get('x-request-id'), /\S/, `${callback}: with its request id`);
  }
  const metadata = await fetch(`${origin}/.well-known/oauth-authorization-server`, { headers: { 'x-request-id': 'trace-me-1' } });
  t.equal(metadata.headers.get('x-request-id'), 'trace-me-1', 'a request id sent is kept');
});
