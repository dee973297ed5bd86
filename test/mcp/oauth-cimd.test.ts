import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import t from 'tap';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp } from '../helper.js';
import { TEST_SECRET, WRITE } from '../requests.js';
import { Browser, MemoryProvider, signIn } from './oauth-client.js';

// A client identified by a client ID metadata document (CIMD): its client_id is the https URL
// of a JSON document the node fetches, with no registration. The document is served on
// 127.0.0.1, which only the tests' switch (OAUTH_CIMD_ALLOW_LOOPBACK) admits: without it,
// oidc-provider refuses special-use addresses, and production refuses the switch.

const tls = { key: readFileSync(new URL('../fixtures/tls/loopback.key', import.meta.url)), cert: readFileSync(new URL('../fixtures/tls/loopback.crt', import.meta.url)) };

/** An https server on 127.0.0.1 serving `document(url)` at /client.json. */
async function documentServer(t: Parameters<typeof buildTestApp>[0], document: (url: string) => object): Promise<string> {
  const server: Server = createServer(tls, (request, response) => {
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`;
    if (request.url !== '/client.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(document(url)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/client.json`;
}

const metadata = (url: string) => ({
  client_id: url,
  client_name: 'Documented Assistant',
  redirect_uris: ['http://127.0.0.1:1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

async function listening(t: Parameters<typeof buildTestApp>[0], allow: boolean) {
  const api = await buildTestApp(t, { data: buildDemoData(), config: { NODE_ENV: 'test', OAUTH_CIMD_ALLOW_LOOPBACK: allow } });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  return { api, origin: `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}` };
}

/** The SDK client, identifying itself by a metadata document's URL. */
class DocumentedProvider extends MemoryProvider {
  constructor(readonly clientMetadataUrl: string) {
    super('http://127.0.0.1:1/callback');
  }
}

t.test('a CIMD client, from a bare 401 to a called tool, with no registration', async (t) => {
  const url = await documentServer(t, metadata);
  const { origin } = await listening(t, true);
  const mcp = new URL('/mcp', origin);
  const provider = new DocumentedProvider(url);
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError);
  t.equal(provider.authorizationUrl?.searchParams.get('client_id'), url, 'the client_id is the document');
  const callback = await signIn(t, origin, provider.authorizationUrl!, await mintSignInToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [WRITE], sub: 'ada' }), 'allow', {
    origin: new URL(url).host,
    name: 'Documented Assistant',
  });
  await transport.finishAuth(callback.searchParams);
  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  t.teardown(() => client.close());
  t.notOk((await client.callTool({ name: 'BillingMethodQuery', arguments: {} })).isError, 'the tool ran');
});

/** What the authorization endpoint answers for a CIMD client_id: a page, never a redirect. */
async function authorize(origin: string, clientId: string) {
  const url = new URL('/oauth/authorize', origin);
  const query = { client_id: clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1:1/callback', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', resource: `${origin}/mcp`, state: 's' };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return new Browser().go(url.href);
}

t.test('refused: a document on this machine without the switch, and one whose client_id is not its URL', async (t) => {
  const url = await documentServer(t, metadata);
  const off = await listening(t, false);
  const refused = await authorize(off.origin, url);
  t.equal(refused.status, 400, 'without the switch, a document at a special-use address is not fetched');
  t.equal(refused.headers.get('location'), null, 'shown on a page, not redirected');
  t.match(await refused.text(), /client/i);

  const other = await documentServer(t, (own) => ({ ...metadata(own), client_id: 'https://example.org/client.json' }));
  const on = await listening(t, true);
  const mismatch = await authorize(on.origin, other);
  t.equal(mismatch.status, 400, "a document whose client_id is not its URL is refused");
  t.equal(mismatch.headers.get('location'), null);
});

t.test('production refuses the switch at start-up, naming it', async (t) => {
  const { loadConfig } = await import('../../src/config.js');
  t.throws(() => loadConfig({ NODE_ENV: 'production', OAUTH_CIMD_ALLOW_LOOPBACK: true }, {}), /OAUTH_CIMD_ALLOW_LOOPBACK/);
});
