import { sql } from 'kysely';
import t from 'tap';
import { COMPANY_A } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { buildTestApp } from '../helper.js';
import { METRICS_TOKEN, sample, scrape } from '../metrics/exposition.js';
import { postMcp, rpcMessage, type Era } from './client.js';

// Faults of the server during a tool call (docs/decisions.md, "The MCP server"). A fault of
// the operation is its answer, as over HTTP: a result with `isError` and the 500's
// ResponseStatus, metered as any result. A fault around the operation (the metering's
// statements) is the JSON-RPC error the SDK answers a failed handler with, saying no more than
// HTTP's 500 does; every revision answers it alike, and counts it as an `error` outcome.

const FAULT = { code: -32603, message: 'An unexpected error occurred.' };
const PATHS: Array<[string, Era]> = [
  ['2026-07-28', '2026-07-28'],
  ['2025-11-25', '2025-11-25'],
];

t.test("an operation's fault is its HTTP 500 answer, as a result with isError, and is metered", async (t) => {
  const api = await buildTestApp(t, { config: { METRICS_TOKEN }, data: mcpUsageData(new Date()) });
  await sql`alter table categories rename to categories_gone`.execute(api.store.db);
  const http = await api.call('GET', '/categories');
  t.equal(http.statusCode, 500);
  for (const [path, era] of PATHS) {
    const res = await postMcp(api, 'tools/call', { name: 'CategoryQuery', arguments: {} }, { era });
    t.equal(res.statusCode, 200, path);
    const { result } = rpcMessage(res);
    t.equal(result.isError, true, path);
    t.same(result.structuredContent, http.json(), `${path}: the HTTP 500's body`);
    t.equal(result.content[0].text, http.body, `${path}: and its text`);
    t.ok(result._meta['booking-admin/tokens'] > 0, `${path}: metered`);
  }
  const text = await scrape(api);
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'CategoryQuery', outcome: 'error' }), 2, 'counted as errors');
});

t.test('a fault around the operation is a JSON-RPC internal error that says nothing of it, in every revision', async (t) => {
  const api = await buildTestApp(t, { config: { METRICS_TOKEN }, data: mcpUsageData(new Date()) });
  // The metering's budget read reads the daily roll-up: without it, every metered call faults.
  await sql`alter table mcp_usage_daily rename to mcp_usage_daily_gone`.execute(api.store.db);
  for (const [path, era] of PATHS) {
    const res = await postMcp(api, 'tools/call', { name: 'CategoryQuery', arguments: {} }, { era, id: 41 });
    t.equal(res.statusCode, 200, path);
    const message = rpcMessage(res) as { id?: unknown; error?: unknown; result?: unknown };
    t.same(message.error, FAULT, `${path}: the internal error`);
    t.equal(message.id, 41, `${path}: answering the request`);
    t.notOk(message.result, path);
    t.notMatch(res.body, /mcp_usage|table|sql/i, `${path}: nothing of the fault`);
  }
  // Unmetered, GetMcpUsage still runs as its operation: its own read of the usage faults there.
  const usage = rpcMessage(await postMcp(api, 'tools/call', { name: 'GetMcpUsage', arguments: { CompanyId: COMPANY_A } }));
  t.equal(usage.result?.isError, true, 'GetMcpUsage is not metered: its fault is its own 500');
  const text = await scrape(api);
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'CategoryQuery', outcome: 'error' }), 2, 'counted as errors');
});
