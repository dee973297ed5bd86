import t from 'tap';
import { COMPANY_A } from '../fixtures.js';
import { READ, TEST_SECRET, WRITE, buildTestApp, expectRefusal, token } from '../helper.js';
import { mintToken } from '../../src/auth/token.js';
import { ERAS, mcpClient, postMcp, rpcMessage } from './client.js';
import { mcpUsageData } from '../fixtures/queries.js';

// The transport and the protocol (docs/decisions.md, "The MCP server"). The official
// conformance suite (@modelcontextprotocol/conformance 0.1.16) needs Node 22 and sends no
// bearer token in its server mode, so its server scenarios that apply here are cases below,
// each named after its scenario: server-initialize, ping, tools-list, tools-call-simple-text,
// tools-call-error, json-schema-2020-12 and dns-rebinding-protection, and the protocol
// revisions' headers.

const app = (t: Parameters<typeof buildTestApp>[0], config = {}) => buildTestApp(t, { data: mcpUsageData(new Date()), config });

for (const era of ERAS) {
  t.test(`${era}: conformance server-initialize, tools-list, tools-call-simple-text, tools-call-error and ping (2025) through the SDK client`, async (t) => {
    const api = await app(t);
    const client = await mcpClient(t, api, { era });
    t.equal(client.getServerVersion()?.name, 'booking-admin-api', 'server-initialize: the server names itself');
    t.ok(client.getServerCapabilities()?.tools, 'server-initialize: it offers tools');
    const { tools } = await client.listTools();
    t.ok(tools.length > 0, 'tools-list');
    for (const tool of tools) t.ok(tool.name && tool.description && tool.inputSchema?.type === 'object', `tools-list: ${tool.name} has a name, a description and an object input schema`);
    const ok = await client.callTool({ name: 'GetMcpUsage', arguments: {} });
    t.equal((ok.content as Array<{ type: string; text: string }>)[0].type, 'text', 'tools-call-simple-text: text content');
    t.same(JSON.parse((ok.content as Array<{ text: string }>)[0].text), ok.structuredContent, 'the text is the structured content as JSON');
    const refused = await client.callTool({ name: 'DeleteTag', arguments: { Id: 999999 } });
    t.equal(refused.isError, true, 'tools-call-error: isError');
    t.match((refused.content as Array<{ text: string }>)[0].text, /NotFound/, 'tools-call-error: with the reason as text');
    // The 2026-07-28 revision has no ping: its requests stand alone.
    if (era !== '2026-07-28') t.same(await client.ping(), {}, 'ping: an empty result');
  });
}

t.test('protocol-version headers: each revision answers in its own; an unknown one is refused', async (t) => {
  const api = await app(t);
  for (const era of ERAS) {
    const res = await postMcp(api, 'tools/list', {}, { era });
    t.equal(res.statusCode, 200, `${era}: answered without initialize first`);
    t.notOk(res.headers['mcp-session-id'], `${era}: no session id is issued`);
    t.ok(rpcMessage(res).result.tools.length > 0, `${era}: the tools`);
  }
  const unknown = await postMcp(api, 'tools/list', {}, { era: '2025-06-18', headers: { 'mcp-protocol-version': '1999-01-01' } });
  t.equal(unknown.statusCode, 400, 'an unsupported MCP-Protocol-Version is refused');
  t.match(unknown.json(), { jsonrpc: '2.0', error: { code: Number }, ResponseStatus: { ErrorCode: 'BadRequest' } }, 'as JSON-RPC, with the ResponseStatus beside');
});

t.test('json-schema-2020-12: $defs and type lists reach the client as listed', async (t) => {
  const api = await app(t);
  const client = await mcpClient(t, api);
  const { tools } = await client.listTools();
  const create = tools.find((tool) => tool.name === 'CreateArticleRebateCode')!;
  t.ok(create.inputSchema.$defs && Object.keys(create.inputSchema.$defs as object).length > 0, 'inputSchema.$defs');
  t.match(JSON.stringify(create.outputSchema), /"\$ref":"#\/\$defs\//, 'outputSchema refers to its $defs');
});

t.test('an unknown tool is a JSON-RPC error, not a result', async (t) => {
  const api = await app(t);
  for (const era of ERAS) {
    const message = rpcMessage(await postMcp(api, 'tools/call', { name: 'NoSuchTool', arguments: {} }, { era }));
    t.equal(message.result, undefined, `${era}: no result`);
    t.equal(message.error?.code, -32602, `${era}: invalid params`);
  }
});

t.test('MCP_AUTH=bearer, as before OAuth: none or a bad token is 401 with the resource metadata; the metadata needs none', async (t) => {
  const api = await app(t, { AUTH_ISSUER: 'https://id.example.org/realms/booking', MCP_AUTH: 'bearer' });
  const expired = await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], expiresIn: '-1m' });
  for (const [what, as] of [['no token', null], ['an expired token', expired], ['a token of another secret', await mintToken('another-secret-of-sixteen-chars', { companyId: COMPANY_A, roles: [WRITE] })]] as const) {
    const res = await postMcp(api, 'tools/list', {}, { as });
    expectRefusal(t, res, { status: 401, code: 'Unauthorized' });
    t.equal(res.headers['www-authenticate'], 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"', `${what}: the challenge`);
  }
  const metadata = await api.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp', headers: { host: 'api.example.org' } });
  t.equal(metadata.statusCode, 200);
  t.same(metadata.json(), {
    resource: 'http://api.example.org/mcp',
    authorization_servers: ['https://id.example.org/realms/booking'],
    bearer_methods_supported: ['header'],
    resource_name: 'Booking Administration API',
    resource_documentation: 'http://api.example.org/docs',
  }, 'RFC 9728: the resource is <origin>/mcp and the identity provider is named');
  const oddHost = await postMcp(api, 'tools/list', {}, { as: null, headers: { host: 'not a host' } });
  t.equal(oddHost.headers['www-authenticate'], 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"', 'a Host that names no origin');
  const plain = await buildTestApp(t, { config: { MCP_AUTH: 'bearer' } });
  t.equal((await postMcp(plain, 'tools/list', {}, { headers: { host: 'not a host' } })).statusCode, 200, 'and a call with it is served');
  t.notOk('authorization_servers' in (await plain.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).json(), 'no identity provider named without AUTH_ISSUER');
});

t.test('GET and DELETE on /mcp answer 405, with or without credentials', async (t) => {
  const api = await app(t);
  for (const method of ['GET', 'DELETE'] as const) {
    for (const headers of [{}, { authorization: `Bearer ${await token(COMPANY_A)}` }]) {
      const res = await api.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream', ...headers } });
      expectRefusal(t, res, { status: 405, code: 'MethodNotAllowed' });
      t.equal(res.headers.allow, 'POST');
    }
  }
});

t.test('dns-rebinding-protection: a browser Origin the server does not allow is 403; its own machine and CORS_ORIGINS are allowed', async (t) => {
  const api = await app(t, { CORS_ORIGINS: 'https://admin.example.org' });
  const rebound = await postMcp(api, 'tools/list', {}, { headers: { origin: 'http://evil.example.com', host: 'evil.example.com' } });
  expectRefusal(t, rebound, { status: 403, code: 'Forbidden' });
  t.equal(rebound.headers['www-authenticate'], undefined);
  for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'https://admin.example.org']) {
    t.equal((await postMcp(api, 'tools/list', {}, { headers: { origin } })).statusCode, 200, `${origin} is allowed`);
  }
  expectRefusal(t, await postMcp(api, 'tools/list', {}, { headers: { origin: 'null' } }), { status: 403, code: 'Forbidden' });
  const preflight = await api.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin: 'https://admin.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-method, mcp-name' },
  });
  t.equal(preflight.statusCode, 204, 'a page of CORS_ORIGINS may send the protocol headers');
  t.match(preflight.headers['access-control-allow-headers'], /Mcp-Protocol-Version/);
});

t.test('HTTP errors of the transport keep the ResponseStatus shape', async (t) => {
  const api = await app(t);
  const notJson = await api.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${await token(COMPANY_A)}`, 'content-type': 'text/plain' }, payload: 'hello' });
  expectRefusal(t, notJson, { status: 415, code: 'UnsupportedMediaType' });
  const badJson = await api.inject({ method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${await token(COMPANY_A)}`, 'content-type': 'application/json' }, payload: '{' });
  t.equal(badJson.statusCode, 400);
  t.ok(badJson.json().ResponseStatus, 'an unparsable body');
  const legacyWithoutStream = await postMcp(api, 'tools/list', {}, { era: '2025-06-18', headers: { accept: 'application/json' } });
  t.equal(legacyWithoutStream.statusCode, 406, 'a 2025 client must accept an event stream');
  t.match(legacyWithoutStream.json(), { error: { message: String }, ResponseStatus: { ErrorCode: 'NotAcceptable' } });
});

t.test('a reader lists and calls as a reader; the tools of its roles only', async (t) => {
  const api = await app(t);
  const client = await mcpClient(t, api, { as: [READ] });
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.ok(names.includes('BookingPrintoutQuery'));
  t.notOk(names.includes('DeleteTag'));
});

t.test('hostile JSON-RPC bodies are refused, never answered with a 5xx', async (t) => {
  const api = await app(t);
  const authorization = `Bearer ${await token(COMPANY_A)}`;
  const bodies: unknown[] = [
    [], [1, 2], {}, { jsonrpc: '2.0' }, { jsonrpc: '2.0', id: 1, method: 'tools/call' },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'DeleteTag', arguments: 'x' } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'DeleteTag', arguments: { Id: { $gt: 1 }, __proto__: { x: 1 } } } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'UpdateWebhookEndpoint', arguments: { Id: '..', CompanyId: [COMPANY_A] } } },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'GetMcpUsage', arguments: { format: 'csv' } } },
    { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }, { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, result: {} }, 'text', 42, null,
  ];
  for (const era of ERAS) {
    for (const body of bodies) {
      const res = await api.inject({
        method: 'POST',
        url: '/mcp',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': era },
        payload: JSON.stringify(body),
      });
      t.ok(res.statusCode < 500, `${era} ${JSON.stringify(body)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
});
