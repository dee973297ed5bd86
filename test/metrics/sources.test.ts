import type { CallToolResult } from '@modelcontextprotocol/client';
import t from 'tap';
import { TOKENS_META } from '../../src/mcp/server.js';
import { COMPANY_A } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { buildTestApp } from '../helper.js';
import { mcpClient } from '../mcp/client.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';
import { A, DELIVERY_CONFIG, EVENT_TYPES, WRITES, dataWithEndpoints, secretOfPath } from '../webhooks/setup.js';
import { METRICS_TOKEN, sample, scrape } from './exposition.js';

// What the rest of the server reports to GET /metrics (docs/decisions.md, "Metrics"): the
// outbox as the database holds it, the worker's attempts, and the MCP server's calls and tokens.

t.test('the outbox gauges: database-wide pending deliveries, the oldest one\'s age, the failing endpoints', async (t) => {
  // Delivery off (the tests' default): events are recorded and wait.
  const endpoints = [
    { company: A, id: 'a-all', eventTypes: EVENT_TYPES },
    { company: A, id: 'a-tags', eventTypes: ['tag.deactivated'] },
  ];
  const api = await buildTestApp(t, { company: A, config: { METRICS_TOKEN }, data: dataWithEndpoints('http://127.0.0.1:9', endpoints) });
  let text = await scrape(api);
  t.equal(sample(text, 'webhook_outbox_pending'), 0);
  t.equal(sample(text, 'webhook_outbox_oldest_pending_age_seconds'), 0, 'nothing pending: no age');
  t.equal(sample(text, 'webhook_endpoints_failing'), 0);

  const [method, url] = WRITES['tag.deactivated'];
  t.equal((await api.call(method, url)).statusCode, 200);
  text = await scrape(api);
  t.equal(sample(text, 'webhook_outbox_pending'), 2, 'one delivery per subscribed endpoint');
  t.ok(sample(text, 'webhook_outbox_oldest_pending_age_seconds')! < 60, 'just recorded');
  t.equal(sample(text, 'webhook_endpoints_failing'), 0, 'not attempted yet');

  // As a failed first attempt an hour ago leaves the delivery of one endpoint.
  const hourAgo = new Date(Date.now() - 3600_000).toISOString();
  await api.store.db.updateTable('webhook_deliveries').set({ attempts: 1, created: hourAgo }).where('endpoint_id', '=', 'a-tags').execute();
  text = await scrape(api);
  t.equal(sample(text, 'webhook_endpoints_failing'), 1);
  const age = sample(text, 'webhook_outbox_oldest_pending_age_seconds')!;
  t.ok(age >= 3600 && age < 3660, `the oldest is an hour old (${age} s)`);

  await api.store.db.updateTable('webhook_deliveries').set({ status: 'succeeded' }).execute();
  t.equal(sample(await scrape(api), 'webhook_outbox_pending'), 0, 'delivered: no longer pending');
});

t.test('when the outbox cannot be read, its gauges are NaN and the rest of the scrape is answered', async (t) => {
  const api = await buildTestApp(t, { config: { METRICS_TOKEN } });
  await api.store.db.schema.dropTable('webhook_attempts').execute();
  await api.store.db.schema.dropTable('webhook_deliveries').execute();
  await api.call('GET', '/categories', { as: null });
  const text = await scrape(api);
  for (const name of ['webhook_outbox_pending', 'webhook_outbox_oldest_pending_age_seconds', 'webhook_endpoints_failing']) {
    t.ok(Number.isNaN(sample(text, name)), `${name} is NaN, not a stale figure`);
  }
  t.equal(sample(text, 'http_request_duration_seconds_count', { operation: 'CategoryQuery' }), 1);
});

t.test('each delivery attempt is counted by outcome, with its duration', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  // a-flaky fails once then takes it; a-down always fails (one retry, then no more); a-gone answers 410.
  receiver.answer((delivery) => {
    if (delivery.path === '/a-gone') return { status: 410 };
    if (delivery.path === '/a-down') return { status: 503 };
    const earlier = receiver.deliveries.filter((d) => d.path === delivery.path).length;
    return { status: earlier > 1 ? 200 : 500 };
  });
  const endpoints = ['a-flaky', 'a-down', 'a-gone'].map((id) => ({ company: A, id, eventTypes: ['tag.deactivated'] }));
  const api = await buildTestApp(t, {
    company: A,
    config: { ...DELIVERY_CONFIG, WEBHOOK_RETRY_SCHEDULE: '50ms', METRICS_TOKEN },
    data: dataWithEndpoints(receiver.origin, endpoints),
  });
  const [method, url] = WRITES['tag.deactivated'];
  t.equal((await api.call(method, url)).statusCode, 200);

  const expected = { succeeded: 1, retry: 2, failed: 1, gone: 1 };
  const text = await eventually('five attempts counted', async () => {
    const scraped = await scrape(api);
    return sample(scraped, 'webhook_delivery_attempts_total') === 5 && scraped;
  });
  for (const [outcome, count] of Object.entries(expected)) {
    t.equal(sample(text, 'webhook_delivery_attempts_total', { outcome }), count, outcome);
  }
  t.equal(sample(text, 'webhook_delivery_attempt_duration_seconds_count'), 5, 'each attempt timed');
  t.ok(sample(text, 'webhook_delivery_attempt_duration_seconds_sum')! < 10, 'in seconds');
});

t.test('MCP tool calls are counted by tool and outcome, and the tokens they metered', async (t) => {
  const api = await buildTestApp(t, { config: { METRICS_TOKEN }, data: mcpUsageData(new Date()) });
  const client = await mcpClient(t, api);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const results = [await call('CategoryQuery', { Take: 2 }), await call('DeleteTag', { Id: 999999 }), await call('GetMcpUsage')];
  const metered = results.reduce((sum, result) => sum + (result._meta?.[TOKENS_META] as number), 0);
  await api.store.db.updateTable('companies').set({ mcp_token_limit: 1 }).where('id', '=', COMPANY_A).execute();
  t.ok((await call('CategoryQuery')).isError, 'over budget');

  const text = await scrape(api);
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'CategoryQuery', outcome: 'ok' }), 1);
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'DeleteTag', outcome: 'refused' }), 1, 'refused by its operation (404)');
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'GetMcpUsage', outcome: 'ok' }), 1);
  t.equal(sample(text, 'mcp_tool_calls_total', { tool: 'CategoryQuery', outcome: 'over_budget' }), 1);
  t.ok(metered > 0);
  t.equal(sample(text, 'mcp_tokens_total'), metered, 'the tokens the results reported, GetMcpUsage\'s none');
  t.equal(
    sample(text, 'http_request_duration_seconds_count', { operation: 'DeleteTag', status_code: '404' }),
    1,
    'a call runs through its operation\'s route, observed there too',
  );
});
