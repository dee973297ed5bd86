import t from 'tap';
import { COMPANY_A } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { READ, buildTestApp, type TestApp } from '../helper.js';
import { postMcp, type ClientOptions } from './client.js';
import type { FastifyRequest } from 'fastify';
import { directCall } from '../../src/mcp/direct.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';
import { ENVELOPE } from './client.js';

const mcpSdk = await import('@modelcontextprotocol/server');
const tools = new Map(mcpTools(contract().document).map((tool) => [tool.definition.name, tool]));

/** The MCP request postMcp sends, as the route sees it, for the direct path's own decision. */
const request = (name: string, args: Record<string, unknown>, id: unknown, mcpName = name) =>
  ({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': mcpName },
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: ENVELOPE } },
  }) as unknown as FastifyRequest;

// The direct path of a plain 2026-07-28 tools/call (src/mcp/direct.ts) answers as the SDK
// answers the same call, byte for byte. The same call is sent twice to two apps on the same
// data: as is, which the direct path takes, and with its Mcp-Name header in the protocol's
// Base64 form, which names the same tool to the SDK but which the direct path leaves to it.

const sdkName = (name: string) => `=?base64?${Buffer.from(name).toString('base64')}?=`;
/** What differs between two apps answering the same call: the request id, the date, and the moment a write records. */
const atAnyMoment = (body: string) => body.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<moment>');
const HEADERS_COMPARED = ['content-type', 'cache-control', 'content-length'];

async function side(t: Parameters<typeof buildTestApp>[0], data: unknown): Promise<TestApp> {
  return buildTestApp(t, { data });
}

const cases: Array<{ title: string; name: string; args: Record<string, unknown>; options?: ClientOptions; data?: (api: TestApp) => Promise<void> }> = [
  { title: 'a read', name: 'CategoryQuery', args: { Take: 3 } },
  { title: 'a read with a structured answer of its own', name: 'GetMcpUsage', args: {} },
  { title: 'a write', name: 'CreateResourceType', args: { Name: 'Rooms' } },
  { title: "a refusal by the operation (404)", name: 'DeleteTag', args: { Id: 999999 } },
  { title: 'a refusal by its validation (400)', name: 'CreateResourceType', args: { Name: 7, Active: 'yes' } },
  { title: 'a refusal by its roles', name: 'CreateResourceType', args: { Name: 'No' }, options: { as: [READ] } },
  { title: 'a refusal for the company it names', name: 'CategoryQuery', args: { CompanyId: '00000000-0000-4000-8000-00000000000b' } },
  {
    title: 'a refusal for the budget',
    name: 'CategoryQuery',
    args: {},
    data: async (api) => {
      await api.store.db.updateTable('companies').set({ mcp_token_limit: 1 }).where('id', '=', COMPANY_A).execute();
    },
  },
];

for (const { title, name, args, options = {}, data } of cases) {
  t.test(`${title}: the direct answer is the SDK's`, async (t) => {
    const [direct, sdk] = [await side(t, mcpUsageData(new Date())), await side(t, mcpUsageData(new Date()))];
    for (const api of [direct, sdk]) await data?.(api);
    const a = await postMcp(direct, 'tools/call', { name, arguments: args }, { ...options, id: 41 });
    const b = await postMcp(sdk, 'tools/call', { name, arguments: args }, { ...options, id: 41, headers: { 'mcp-name': sdkName(name) } });
    t.ok(directCall(request(name, args, 41), mcpSdk, tools), 'the direct path takes the call as sent');
    t.notOk(directCall(request(name, args, 41, sdkName(name)), mcpSdk, tools), 'and leaves the other form to the SDK');
    t.equal(a.statusCode, b.statusCode, 'the status');
    for (const header of HEADERS_COMPARED) t.equal(a.headers[header], b.headers[header], header);
    t.equal(atAnyMoment(a.body), atAnyMoment(b.body), 'the body, byte for byte');
    t.match(JSON.parse(a.body), { jsonrpc: '2.0', id: 41, result: { content: [{ type: 'text' }] } }, 'a tool result');
  });
}

t.test('anything but a plain call of this revision is left to the SDK', async (t) => {
  const plain = request('CategoryQuery', {}, 1) as unknown as { headers: Record<string, string>; body: any };
  t.ok(directCall(plain as never, mcpSdk, tools), 'the plain call');
  const variants: Array<[string, (r: { headers: Record<string, string>; body: any }) => void]> = [
    ['a 2025 revision', (r) => (r.headers['mcp-protocol-version'] = '2025-11-25')],
    ['another method', (r) => ((r.body.method = 'tools/list'), (r.headers['mcp-method'] = 'tools/list'))],
    ['a method header that differs', (r) => (r.headers['mcp-method'] = 'tools/list')],
    ['no name header', (r) => delete r.headers['mcp-name']],
    ['an unknown tool', (r) => ((r.body.params.name = 'Nothing'), (r.headers['mcp-name'] = 'Nothing'))],
    ['arguments that are no object', (r) => (r.body.params.arguments = [1])],
    ['an envelope of another revision', (r) => (r.body.params._meta = { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' })],
    ['an envelope that is no object', (r) => (r.body.params._meta = 'x')],
    ['client information that is no implementation', (r) => (r.body.params._meta = { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 7 } })],
    ['client capabilities that are no object', (r) => (r.body.params._meta = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'all' })],
    ['an envelope without its protocol version', (r) => delete r.body.params._meta['io.modelcontextprotocol/protocolVersion']],
    ['another JSON-RPC version', (r) => (r.body.jsonrpc = '1.0')],
    ['a progress token', (r) => (r.body.params._meta = { ...ENVELOPE, progressToken: 1 })],
    ['a member of its own', (r) => (r.body.params.task = {})],
    ['no id', (r) => delete r.body.id],
    ['a fractional id', (r) => (r.body.id = 1.5)],
    ['another media type', (r) => (r.headers['content-type'] = 'text/plain')],
    ['an answer only as an event stream', (r) => (r.headers.accept = 'text/event-stream')],
  ];
  // Twice: the second time, the direct path answers from the SDK's verdict on the envelope it kept.
  for (const time of ['', ', again']) {
    for (const [label, change] of variants) {
      const r = structuredClone(plain);
      change(r);
      t.notOk(directCall(r as never, mcpSdk, tools), label + time);
    }
    t.ok(directCall(structuredClone(plain) as never, mcpSdk, tools), 'the plain call' + time);
  }
});

t.test("the SDK's verdicts the path keeps, and the envelopes it reads each time", async (t) => {
  let read = 0;
  const sdk = {
    ...mcpSdk,
    classifyInboundRequest: (...args: Parameters<typeof mcpSdk.classifyInboundRequest>) => (read++, mcpSdk.classifyInboundRequest(...args)),
  };
  /** The call with these client information and capabilities: whether the path takes it, and how many times the SDK read it. */
  const call = (clientInfo: unknown, clientCapabilities: unknown = {}) => {
    const r = request('CategoryQuery', {}, 1) as unknown as { body: any };
    r.body.params._meta = { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': clientInfo, 'io.modelcontextprotocol/clientCapabilities': clientCapabilities };
    read = 0;
    const taken = directCall(r as never, sdk as never, tools) !== undefined;
    return { taken, read };
  };
  t.same(call({ name: 'kept', version: '1' }), { taken: true, read: 1 }, 'an envelope seen first is read');
  t.same(call({ name: 'kept', version: '1' }), { taken: true, read: 0 }, 'and then not again');
  t.same(call({ name: 'kept', version: 1 }), { taken: false, read: 1 }, 'one not well formed is read');
  t.same(call({ name: 'kept', version: 1 }), { taken: false, read: 0 }, 'and refused again without');

  const long = { name: 'x'.repeat(2_000), version: '1' };
  for (const time of ['', ', again']) t.same(call(long), { taken: true, read: 1 }, 'a long envelope is read each time' + time);

  // A number too large for a double is parsed as Infinity, which the SDK refuses, and JSON
  // writes it as null, which the SDK takes: the two must not share a verdict, in either order.
  const huge = { x: { v: JSON.parse('1e400') } };
  const nothing = { x: { v: null } };
  for (const [first, second] of [[huge, nothing], [nothing, huge]]) {
    for (const capabilities of [first, second, first, second]) {
      const { taken } = call({ name: 'numbers', version: '1' }, { experimental: capabilities });
      t.equal(taken, capabilities === nothing, capabilities === nothing ? 'null in the capabilities is taken' : 'Infinity in them is not');
    }
  }
  t.same(call({ name: 'numbers', version: '1' }, { experimental: huge }).read, 1, 'the envelope with Infinity is read each time');

  // An envelope too deep to write as JSON: read by the SDK, as any envelope was before verdicts were kept.
  let deep: unknown = 0;
  for (let i = 0; i < 20_000; i++) deep = [deep];
  const judged = mcpSdk.classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: '2026-07-28',
    mcpMethodHeader: 'tools/call',
    mcpNameHeader: 'CategoryQuery',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'CategoryQuery', _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'deep', version: '1', junk: deep } } } },
  } as never);
  for (const time of ['', ', again'])
    t.same(call({ name: 'deep', version: '1', junk: deep }), { taken: judged.kind === 'modern', read: 1 }, 'a deep envelope is read each time, as the SDK judges it' + time);

  // More envelopes than it keeps verdicts on: it starts over, and the first is read again.
  call({ name: 'first', version: '1' });
  t.equal(call({ name: 'first', version: '1' }).read, 0, 'the first envelope is kept');
  for (let i = 0; i < 300; i++) call({ name: `client ${i}`, version: '1' });
  t.same(call({ name: 'first', version: '1' }), { taken: true, read: 1 }, 'and read again after 300 others');
});

t.test('envelopes that keep no verdict, sent to the server: answered as the SDK answers them', async (t) => {
  const api = await side(t, mcpUsageData(new Date()));
  // Written by hand: JSON.stringify can write neither 1e400 nor an array 20,000 deep.
  const envelope = (clientInfo: string, capabilities: string) =>
    `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":${clientInfo},"io.modelcontextprotocol/clientCapabilities":${capabilities}}`;
  const envelopes = {
    'a number too large for a double': envelope('{"name":"t","version":"1"}', '{"experimental":{"x":{"v":1e400}}}'),
    'an envelope too deep to write': envelope(`{"name":"t","version":"1","junk":${'['.repeat(20_000)}0${']'.repeat(20_000)}}`, '{}'),
  };
  for (const [label, meta] of Object.entries(envelopes)) {
    const send = (mcpName: string) =>
      postMcp(api, 'tools/call', { name: 'CategoryQuery' }, {
        headers: { 'mcp-name': mcpName },
        payload: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"CategoryQuery","arguments":{},"_meta":${meta}}}`,
      });
    const [direct, sdk] = [await send('CategoryQuery'), await send(sdkName('CategoryQuery'))];
    t.ok(direct.statusCode < 500, `${label}: no fault (${direct.statusCode})`);
    t.equal(direct.statusCode, sdk.statusCode, `${label}: the SDK's status`);
    t.equal(atAnyMoment(direct.body), atAnyMoment(sdk.body), `${label}: the SDK's answer`);
  }
});

t.test('a string id, as the SDK echoes it', async (t) => {
  const [direct, sdk] = [await side(t, mcpUsageData(new Date())), await side(t, mcpUsageData(new Date()))];
  const a = await postMcp(direct, 'tools/call', { name: 'CategoryQuery', arguments: {} }, { id: 'call-"1"' as never });
  const b = await postMcp(sdk, 'tools/call', { name: 'CategoryQuery', arguments: {} }, { id: 'call-"1"' as never, headers: { 'mcp-name': sdkName('CategoryQuery') } });
  t.equal(a.body, b.body);
});
