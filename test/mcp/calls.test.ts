import type { CallToolResult } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A as A, DEMO_COMPANY_B as B } from '../../src/store/demo-data.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';
import { EXAMPLES, type Example, type ExampleOperation } from '../examples.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, type TestApp } from '../helper.js';
import { storeState } from '../snapshot.js';
import { exampleOptions, exampleRequest } from '../operation-calls.js';
import { dataWithEndpoints } from '../webhooks/setup.js';
import { mcpClient, postMcp, rpcMessage, type ClientOptions } from './client.js';

// Every operation through MCP (docs/decisions.md, "The MCP server"): a caller sees the tools of
// its roles; every example request of every operation answers through MCP as it answers over
// HTTP, on two apps on the same demo data, its structured content valid against the tool's
// output schema; writes are the operation's own (read back over HTTP, webhook events), and a
// tools/call counts once against the rate limits.

const tools = new Map(mcpTools(contract().document).map((tool) => [tool.definition.name, tool.definition]));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(formats as unknown as (ajv: Ajv2020) => void)(ajv);

type Text = Array<{ type: string; text: string }>;
const textOf = (result: CallToolResult) => (result.content as Text)[0].text;

/** The arguments of an example: its path, query and body fields in one object. */
const argumentsOf = (example: Example) => ({ ...example.path, ...example.query, ...example.body }) as Record<string, unknown>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Values each store draws for itself: signs and secrets at random, and new customers' ids. */
const DRAWN = new Set(['RebateCodeSign', 'Secret']);

/** An answer without what differs between two stores answering the same write: the moment, and what is drawn. */
function comparable(value: unknown): unknown {
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}T/.test(value) ? '<time>' : GUID.test(value) && value !== A && value !== B ? '<guid>' : value;
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, DRAWN.has(key) ? '<drawn>' : comparable(v)]));
}

t.test('tools/list shows each role the tools it may call', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  for (const roles of [[WRITE], [READ], [SUPERADMIN], []]) {
    const client = await mcpClient(t, api, { as: roles, company: A });
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    const allowed = [...contract().operations.values()]
      .filter((op) => op.mcp && (op.roles.length === 0 || op.roles.some((role) => roles.includes(role))))
      .map((op) => op.operationId)
      .sort();
    t.strictSame(listed, allowed, `roles [${roles.join(', ')}]`);
  }
});

t.test('every example of every operation answers through MCP as over HTTP', async (t) => {
  for (const [operationId, examples] of Object.entries(EXAMPLES) as Array<[ExampleOperation, Record<string, Example>]>) {
    // An operation marked x-mcp: false is no tool (below).
    if (!contract().operations.get(operationId)!.mcp) continue;
    // One pair of stores per operation, its examples in the catalogue's order (a delete succeeds once).
    const overMcp = await buildTestApp(t, { data: buildDemoData(), company: A });
    const overHttp = await buildTestApp(t, { data: buildDemoData(), company: A });
    const clients = new Map<string, Awaited<ReturnType<typeof mcpClient>>>();
    for (const [name, example] of Object.entries(examples)) {
      // MCP answers JSON; the format parameter is no argument of a tool.
      if (example.query && 'format' in example.query) continue;
      const label = `${operationId}, ${name}`;
      // MCP always needs a caller: one without roles stands for HTTP's anonymous one.
      const caller: ClientOptions = { as: example.as === null ? [] : (example.as ?? [WRITE]), company: example.company ?? A };
      const key = JSON.stringify(caller);
      if (!clients.has(key)) clients.set(key, await mcpClient(t, overMcp, caller));
      const result = (await clients.get(key)!.callTool({ name: operationId, arguments: argumentsOf(example) })) as CallToolResult;
      const { method, url } = exampleRequest(operationId, example);
      const http = await overHttp.call(method, url, exampleOptions(example));
      t.equal(result.isError === true, http.statusCode !== 200, `${label}: refused exactly when HTTP refuses (${http.statusCode})`);
      t.same(JSON.parse(textOf(result)), result.structuredContent, `${label}: the text is the structured content`);
      if (http.statusCode !== 200) {
        t.strictSame(result.structuredContent, http.json(), `${label}: the refusal is HTTP's, ResponseStatus and all`);
        continue;
      }
      const validate = ajv.compile(tools.get(operationId)!.outputSchema!);
      t.ok(validate(result.structuredContent), `${label}: valid against the output schema ${ajv.errorsText(validate.errors)}`);
      t.strictSame(comparable(result.structuredContent), comparable(http.json()), `${label}: HTTP's answer`);
    }
  }
});

t.test('an operation marked x-mcp: false is no tool: calling it is an unknown tool, whatever the roles', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  const client = await mcpClient(t, api, { as: [SUPERADMIN], company: A });
  for (const op of [...contract().operations.values()].filter((op) => !op.mcp)) {
    const example = Object.values(EXAMPLES[op.operationId as ExampleOperation] as Record<string, Example>)[0];
    await t.rejects(client.callTool({ name: op.operationId, arguments: argumentsOf(example) }), /Unknown tool/, `${op.operationId}`);
  }
});

/** The demo data with an endpoint for transactions; the value card's lookup and balance; an MCP client of company A. */
async function valueCardApp(t: Parameters<typeof buildTestApp>[0]) {
  const api: TestApp = await buildTestApp(t, {
    company: A,
    data: dataWithEndpoints('http://127.0.0.1:9', [{ company: A, id: 'wh-all', eventTypes: ['rebatecode.transaction.created'] }]),
  });
  const lookup = `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=VALUE1000&ServiceId=101&IncludeConnectedServices=false`;
  const before = (await api.call('GET', lookup)).json().RemainingAmount;
  return { api, lookup, before, client: await mcpClient(t, api, { company: A }) };
}

t.test("a write through MCP is the operation's own: read back over HTTP, its webhook event recorded", async (t) => {
  const { api, lookup, before, client } = await valueCardApp(t);
  const result = await client.callTool({
    name: 'CreateRebateCodeTransaction',
    arguments: { RebateCodeId: 103, Amount: 25, Usage: 0, ChangeType: 'Decrease' },
  });
  t.notOk(result.isError, textOf(result as CallToolResult));
  t.equal(typeof before, 'number');
  t.equal((await api.call('GET', lookup)).json().RemainingAmount, before - 25, 'HTTP reads what MCP wrote');
  const deliveries = await api.store.db.selectFrom('webhook_deliveries').select('endpoint_id').execute();
  t.equal(deliveries.length, 1, 'the event of the write went to the subscribed endpoint');

  // The call runs in the MCP request: its event keeps that request's X-Request-Id, as an HTTP write's does.
  const answer = await postMcp(
    api,
    'tools/call',
    { name: 'CreateRebateCodeTransaction', arguments: { RebateCodeId: 103, Amount: 5, Usage: 0, ChangeType: 'Decrease' } },
    { company: A, headers: { 'x-request-id': 'mcp-call-5c1e' } },
  );
  t.equal(answer.headers['x-request-id'], 'mcp-call-5c1e');
  t.notOk(rpcMessage(answer).result?.isError, answer.body);
  const kept = await api.store.db.selectFrom('webhook_deliveries').select('request_id').where('request_id', '=', 'mcp-call-5c1e').execute();
  t.equal(kept.length, 1, 'the event of the call keeps the request id');
});

t.test('a write tool called twice with one IdempotencyKey runs once; the second result is the first, marked replayed', async (t) => {
  const { api, lookup, before, client } = await valueCardApp(t);
  const change = { RebateCodeId: 103, Amount: 25, Usage: 0, ChangeType: 'Decrease' };
  const first = (await client.callTool({ name: 'CreateRebateCodeTransaction', arguments: { ...change, IdempotencyKey: 'mcp-retry-1' } })) as CallToolResult;
  // The same change in another order and case of its names is the same request.
  const again = (await client.callTool({
    name: 'CreateRebateCodeTransaction',
    arguments: { changetype: 'Decrease', usage: 0, amount: 25, rebatecodeid: 103, IdempotencyKey: 'mcp-retry-1' },
  })) as CallToolResult;
  // Numbers sent as text and an enum name in another case read as over HTTP: the same request again.
  const lenient = (await client.callTool({
    name: 'CreateRebateCodeTransaction',
    arguments: { RebateCodeId: '103', Amount: '25', Usage: '0', ChangeType: 'decrease', IdempotencyKey: 'mcp-retry-1' },
  })) as CallToolResult;
  t.equal(lenient._meta?.['booking-admin/replayed'], true, 'text and an enum name in another case make the same fingerprint');
  t.notOk(first.isError, textOf(first));
  t.notOk(first._meta?.['booking-admin/replayed'], 'the first call ran');
  t.notOk(again.isError, textOf(again));
  t.equal(again._meta?.['booking-admin/replayed'], true, 'the second says it is a replay');
  t.strictSame(again.structuredContent, first.structuredContent, 'the stored answer');
  const tokens = again._meta?.['booking-admin/tokens'];
  t.ok(typeof tokens === 'number' && tokens > 0 && tokens === first._meta?.['booking-admin/tokens'], `a replay is metered like any call (${tokens} tokens)`);
  t.equal((await api.call('GET', lookup)).json().RemainingAmount, before - 25, 'one spend');
  t.equal((await api.store.db.selectFrom('webhook_deliveries').select('endpoint_id').execute()).length, 1, 'one event');

  // An MCP call and an HTTP request of one company share its keys.
  const http = await api.call('POST', '/rebatecodes/transactions', { body: change, headers: { 'idempotency-key': 'mcp-retry-1' } });
  t.equal(http.headers['idempotent-replayed'], 'true');
  t.strictSame(http.json(), first.structuredContent, 'HTTP replays the answer of the tool call');
  const other = (await client.callTool({ name: 'CreateRebateCodeTransaction', arguments: { ...change, Amount: 1, IdempotencyKey: 'mcp-retry-1' } })) as CallToolResult;
  t.equal(other.isError, true);
  t.equal((other.structuredContent as any)?.ResponseStatus?.ErrorCode, 'IdempotencyKeyReused', 'another change with the key is refused');
  const invalid = (await client.callTool({ name: 'DeleteTag', arguments: { Id: 101, IdempotencyKey: 'not a key' } })) as CallToolResult;
  t.equal((invalid.structuredContent as any)?.ResponseStatus?.ErrorCode, 'InvalidIdempotencyKey');
  const tool = mcpTools(contract().document).find((candidate) => candidate.definition.name === 'DeleteTag')!;
  t.match((tool.definition.inputSchema.properties as Record<string, { description?: string }>).IdempotencyKey?.description, /same key/, 'the argument tells a model when to reuse a key');
});

t.test('a refusal through MCP is the HTTP refusal; a refused call changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  const client = await mcpClient(t, api, { company: A });
  const body = { TypeId: 2, Name: '', Title: 'x', Body: 'y'.repeat(200), Sender: 'a@b.se' };
  const http = await api.call('POST', '/messages/templates', { body });
  const before = await storeState(api.store);
  const result = (await client.callTool({ name: 'CreateMessageTemplate', arguments: body })) as CallToolResult;
  t.equal(result.isError, true);
  t.strictSame(result.structuredContent, http.json(), 'the same ErrorCode, fields and messages');
  const after = await storeState(api.store);
  for (const [table, rows] of Object.entries(before.tables)) {
    // A refusal's answer is metered too: its usage is all it adds.
    if (!table.startsWith('mcp_usage')) t.strictSame(after.tables[table], rows, `the refused call changed no row of ${table}`);
  }
  const readers = await mcpClient(t, api, { as: [READ], company: A });
  const forbidden = (await readers.callTool({ name: 'DeleteTag', arguments: { Id: 101 } })) as CallToolResult;
  t.strictSame(forbidden.structuredContent, (await api.call('DELETE', '/tags/101', { as: [READ] })).json(), "a tool outside the caller's roles is refused as its operation refuses");
  const other = (await client.callTool({ name: 'DeleteTag', arguments: { Id: 201, CompanyId: B } })) as CallToolResult;
  t.strictSame(other.structuredContent, (await api.call('DELETE', `/tags/201?CompanyId=${B}`)).json(), "another company's is refused as over HTTP");
});

t.test('a tools/call counts once against the rate limits, as the operation it runs; a 429 is a refused result', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A, config: { RATE_LIMIT_MAX: 4, REBATE_LOOKUP_RATE_LIMIT_MAX: 1 } });
  // The client's own requests (discovery, tools/list) count as requests: a fresh address per client.
  const lookup = { CompanyId: A, RebateCodeSign: 'VALUE1000', ServiceId: 101, IncludeConnectedServices: false };
  const strict = await mcpClient(t, api, { company: A, remoteAddress: '10.0.0.1' });
  t.notOk((await strict.callTool({ name: 'GetRebateCodeBySign', arguments: lookup })).isError, 'the first lookup');
  const tooMany = (await strict.callTool({ name: 'GetRebateCodeBySign', arguments: lookup })) as CallToolResult;
  t.equal(tooMany.isError, true, "the second is beyond the caller's strict limit");
  t.match(tooMany.structuredContent, { ResponseStatus: { ErrorCode: 'TooManyRequests' } });

  const client = await mcpClient(t, api, { company: A, remoteAddress: '10.0.0.3' });
  const counted = await api.inject({ method: 'GET', url: '/categories', remoteAddress: '10.0.0.3' });
  t.equal(counted.headers['x-ratelimit-remaining'], '2', 'connecting was one request (the discovery probe), the HTTP call another');
  t.notOk((await client.callTool({ name: 'CategoryQuery', arguments: {} })).isError, 'a call counts once');
  t.notOk((await client.callTool({ name: 'CategoryQuery', arguments: {} })).isError, 'and another once: four in all');
  const limited = (await client.callTool({ name: 'CategoryQuery', arguments: {} })) as CallToolResult;
  t.equal(limited.isError, true, 'the fifth request of the address is refused');
  t.match(limited.structuredContent, { ResponseStatus: { ErrorCode: 'TooManyRequests' } });
});
