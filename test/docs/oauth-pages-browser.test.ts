import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import t, { type Test as Tap } from 'tap';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { buildDemoData, DEMO_COMPANY_A as COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp } from '../helper.js';
import { CHROMIUM, needs } from '../needs.js';
import { TEST_SECRET, WRITE } from '../requests.js';

// The sign-in and consent pages in a real browser (docs/mcp.md, "Connecting an assistant"):
// headless Chromium follows an authorization URL (PKCE S256, the MCP resource), a person types
// a sign-in token into the page and allows, and the browser lands on the client's loopback
// callback with the code, the state and the issuer, which the client exchanges for tokens.
// Chromium applies the consent page's `form-action` to the redirect that follows its form: the
// landing shows the node's policy admits the client's origin, and the control, the same pages
// with a form-action of 'self' alone, shows that Chromium would stop the redirect otherwise.
// No page of the sign-in reports an error or a violation of its policy.

let launched: Promise<Browser> | undefined;

/** One headless Chromium for the file, at `executablePath` (test/needs.ts finds it). */
function browser(executablePath: string): Promise<Browser> {
  launched ??= puppeteer.launch({
    executablePath,
    headless: true,
    // Tests run as root in CI, where Chromium's sandbox cannot start; the browser reaches
    // nothing off this machine.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  return launched;
}

t.teardown(async () => {
  if (launched) await (await launched).close();
});

/** A client's loopback redirect URI: a local server that records each request to it. */
async function callbackServer(t: Tap): Promise<{ uri: string; received: URL[] }> {
  const received: URL[] = [];
  const server = createServer((request, response) => {
    received.push(new URL(request.url ?? '/', 'http://127.0.0.1'));
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, received };
}

/**
 * What the pages report: console errors and warnings, uncaught errors, and each
 * `securitypolicyviolation` event, which a listener put in before any page's own script
 * (and outside its policy) reports on the console.
 */
async function watch(page: Page): Promise<string[]> {
  const reported: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') reported.push(`${message.type()}: ${message.text()} (${page.url()})`);
  });
  page.on('pageerror', (err) => reported.push(`page error: ${String(err)} (${page.url()})`));
  // A string, run as is: the page gets none of the compiler's helpers.
  await page.evaluateOnNewDocument(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('securitypolicyviolation: ' + e.effectiveDirective + ' blocked ' + e.blockedURI));",
  );
  return reported;
}

/**
 * A node with the demo data, a client registered with a loopback callback, its authorization
 * URL (PKCE S256, the MCP resource), and a page in a browser context of its own, watched.
 */
async function authorization(t: Tap, chromium: string) {
  const api = await buildTestApp(t, { data: buildDemoData() });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  const callback = await callbackServer(t);

  const registered = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Browser Test Client', redirect_uris: [callback.uri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
  });
  t.equal(registered.status, 201, 'the client registers itself');
  const { client_id: clientId } = (await registered.json()) as { client_id: string };

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorize = new URL('/oauth/authorize', origin);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: callback.uri,
    scope: 'booking.read booking.write',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${origin}/mcp`,
  })) authorize.searchParams.set(name, value);

  // A context of its own, closed before the node closes: with it go its pages and the
  // connections Chromium keeps open to the node, which would hold the node's close.
  const context = await (await browser(chromium)).createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  const reported = await watch(page);
  return { origin, callback, clientId, verifier, state, authorize, page, reported };
}

/** The person's part in `page`: the sign-in page, the token typed, "Sign in"; on the consent page. */
async function signIn(t: Tap, page: Page, authorize: URL): Promise<HTTPResponse | null> {
  const signInPage = await page.goto(authorize.href);
  t.equal(signInPage?.status(), 200);
  t.equal(await page.title(), 'Sign in to the Booking Administration API', 'the browser shows the sign-in page');
  t.match(signInPage?.headers()['content-security-policy'], /default-src 'none'/);
  await page.type('textarea#token', await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' }));
  const consentPage = (await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]))[0];
  t.equal(consentPage?.status(), 200);
  t.equal(await page.title(), 'Allow access?', 'signed in, the browser shows the consent page');
  return consentPage;
}

t.test('Chromium: the authorization URL, the sign-in token typed, Allow clicked, the callback gets code, state and iss; the code gets tokens', async (t) => {
  const chromium = needs(t, CHROMIUM);
  if (!chromium) return;
  const { origin, callback, clientId, verifier, state, authorize, page, reported } = await authorization(t, chromium);
  const consentPage = await signIn(t, page, authorize);
  t.match(await page.$eval('body', (body) => body.textContent), /127\.0\.0\.1:\d+ \(calls itself “Browser Test Client”, which is not verified\) asks to act as ada for company/);
  t.match(consentPage?.headers()['content-security-policy'], `form-action 'self' ${new URL(callback.uri).origin}`, "the consent page's policy admits the client's origin");

  await Promise.all([page.waitForNavigation(), page.click('button[value="allow"]')]);
  t.equal(new URL(page.url()).origin + new URL(page.url()).pathname, callback.uri, 'Allow brings the browser to the client’s callback');
  // (Chromium also asks the callback's origin for its /favicon.ico.)
  const calls = callback.received.filter((url) => url.pathname === '/callback');
  t.equal(calls.length, 1, 'which is called once');
  const landed = calls[0];
  const code = landed?.searchParams.get('code');
  t.ok(code, 'with a code');
  t.equal(landed?.searchParams.get('state'), state, 'the state');
  t.equal(landed?.searchParams.get('iss'), origin, 'and the issuer (RFC 9207)');

  const exchanged = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: callback.uri, client_id: clientId, code_verifier: verifier }).toString(),
  });
  t.equal(exchanged.status, 200, 'the code and its verifier are exchanged');
  const tokens = (await exchanged.json()) as { access_token?: string; refresh_token?: string; token_type?: string; scope?: string };
  t.match(tokens, { access_token: String, refresh_token: String, token_type: 'Bearer', scope: 'booking.read booking.write' }, 'for an access and a refresh token');
  const ping = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}`, 'mcp-protocol-version': '2025-11-25' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  t.equal(ping.status, 200, '/mcp takes the access token');

  t.same(reported, [], 'no page reported an error or a violation of its policy');
});

t.test("the control: where the consent page's form-action leaves out the client's origin, Chromium stops the redirect after Allow", async (t) => {
  const chromium = needs(t, CHROMIUM);
  if (!chromium) return;
  const { origin, callback, authorize, page, reported } = await authorization(t, chromium);
  // The node's pages as they come, but with a form-action that admits this node alone. (Only
  // a response fulfilled anew takes its policy from headers changed here.)
  const cdp = await page.createCDPSession();
  const redirects: string[] = [];
  cdp.on('Fetch.requestPaused', (paused: { requestId: string; responseStatusCode?: number; responseHeaders?: { name: string; value: string }[] }) => {
    const responseHeaders = (paused.responseHeaders ?? []).map(({ name, value }) =>
      name.toLowerCase() === 'content-security-policy' ? { name, value: value.replace(/form-action [^;]*/, "form-action 'self'") } : { name, value },
    );
    const location = responseHeaders.find(({ name }) => name.toLowerCase() === 'location');
    if (location) redirects.push(location.value);
    void (async () => {
      if (paused.responseStatusCode !== 200) return cdp.send('Fetch.continueResponse', { requestId: paused.requestId });
      const { body, base64Encoded } = await cdp.send('Fetch.getResponseBody', { requestId: paused.requestId });
      await cdp.send('Fetch.fulfillRequest', { requestId: paused.requestId, responseCode: 200, responseHeaders, body: base64Encoded ? body : Buffer.from(body).toString('base64') });
    })().catch((err: unknown) => reported.push(`interception: ${String(err)}`));
  });
  await cdp.send('Fetch.enable', { patterns: ['interaction', 'authorize'].map((path) => ({ urlPattern: `${origin}/oauth/${path}/*`, requestStage: 'Response' as const })) });

  const consentPage = await signIn(t, page, authorize);
  t.match(consentPage?.headers()['content-security-policy'], "form-action 'self';", "the consent page comes with form-action 'self' alone");
  await page.click('button[value="allow"]');
  for (let waited = 0; waited < 10000 && !reported.some((line) => line.includes('securitypolicyviolation: form-action')); waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.ok(redirects.some((location) => location.startsWith(`${callback.uri}?`)), 'the node sent the browser on to the callback');
  t.match(reported.join('\n'), /violates the following Content Security Policy directive: "form-action 'self'"/, 'Chromium refused that redirect, on the console');
  t.match(reported.join('\n'), /securitypolicyviolation: form-action blocked/, 'and as a securitypolicyviolation event, which the watch reports');
  t.same(callback.received.filter((url) => url.pathname === '/callback'), [], 'the callback is never reached');
  t.equal(await page.title(), 'Allow access?', 'the browser stays on the consent page');
});
