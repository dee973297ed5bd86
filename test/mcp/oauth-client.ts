import { type OAuthClientProvider } from '@modelcontextprotocol/client';
import type { Test as Tap } from 'tap';

// An assistant's OAuth client and a person's browser, for the tests of the authorization
// server: the SDK client's OAuth state in memory, and a browser without JavaScript that
// follows redirects by hand, keeps cookies and posts the sign-in and consent forms.

/** The SDK client's OAuth state, kept in memory, as a desktop assistant keeps it. */
export class MemoryProvider implements OAuthClientProvider {
  client?: Parameters<NonNullable<OAuthClientProvider['saveClientInformation']>>[0];
  saved?: Parameters<OAuthClientProvider['saveTokens']>[0];
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string, readonly scope?: string) {}
  get clientMetadata() {
    return { client_name: 'Test Assistant', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...(this.scope ? { scope: this.scope } : {}) };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: NonNullable<MemoryProvider['client']>) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<MemoryProvider['saved']>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery?: Parameters<NonNullable<OAuthClientProvider['saveDiscoveryState']>>[0];
  saveDiscoveryState(state: NonNullable<MemoryProvider['discovery']>) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A browser without JavaScript: follows redirects by hand, keeps cookies, posts forms. */
export class Browser {
  cookies = new Map<string, string>();
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as object), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair.split('=');
      this.cookies.set(name.trim(), value.join('='));
    }
    return response;
  }
  /** Follows redirects from `url` until a page or a redirect off `origin`. */
  async follow(url: string, origin: string, init?: RequestInit): Promise<{ url: string; response: Response }> {
    let response = await this.go(url, init);
    while (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location')!, url).href;
      if (new URL(url).origin !== origin) return { url, response };
      response = await this.go(url);
    }
    return { url, response };
  }
}

export const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
export const action = (html: string) => /<form method="post" action="([^"]*)"/.exec(html)?.[1];
export const form = (values: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(values).toString() });

/** The person's part: the sign-in page with `token`, then the consent page's `decision`; answers the redirect to the client. */
export async function signIn(
  t: Tap,
  origin: string,
  authorizationUrl: URL,
  token: string,
  decision = 'allow',
  client: { origin: string; name: string } = { origin: '127.0.0.1:1', name: 'Test Assistant' },
) {
  const browser = new Browser();
  let { url, response } = await browser.follow(authorizationUrl.href, origin);
  let html = await response.text();
  t.match(html, /Sign-in token/, 'the sign-in page');
  t.match(response.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  ({ url, response } = await browser.follow(new URL(action(html)!, url).href, origin, form({ nonce: field(html, 'nonce')!, token })));
  html = await response.text();
  t.match(html, /Allow access\?/, 'the consent page');
  t.match(html, `<strong>${client.origin}</strong>`, 'it names where the client came from');
  t.match(html, `“${client.name}”, which is not verified`, "and the client's own name as unverified");
  t.match(response.headers.get('content-security-policy'), /form-action 'self' http:\/\/127\.0\.0\.1:1/, "the policy admits the redirect's origin");
  ({ url, response } = await browser.follow(new URL(action(html)!, url).href, origin, form({ nonce: field(html, 'nonce')!, decision })));
  t.equal(response.status, 303);
  return new URL(url);
}

