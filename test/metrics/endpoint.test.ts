import t from 'tap';
import { noMetrics } from '../../src/metrics/metrics.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp, expectRefusal, token } from '../helper.js';
import { postMcp, rpcMessage } from '../mcp/client.js';
import { engine } from '../test-store.js';
import { METRICS_TOKEN, metricNames, sample, scrape } from './exposition.js';

// GET /metrics (docs/decisions.md, "Metrics"): on only with METRICS_TOKEN, behind that bearer
// token; every answer observed by operation and status, and the rate limits' refusals counted.

const config = { METRICS_TOKEN };

t.test('without METRICS_TOKEN there is no /metrics (404) and nothing is counted', async (t) => {
  const api = await buildTestApp(t);
  const res = await api.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expectRefusal(t, res, { status: 404, code: 'NotFound' });
  t.equal(api.app.metrics, noMetrics, 'the hooks report to nothing');
});

t.test('/metrics needs Authorization: Bearer <METRICS_TOKEN>, else 401', async (t) => {
  const api = await buildTestApp(t, { config });
  const refused = {
    'no header': undefined,
    'another token': 'Bearer not-the-metrics-token',
    'the token cut short': `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
    'the token and more': `Bearer ${METRICS_TOKEN}x`,
    'another scheme': `Basic ${Buffer.from(`prometheus:${METRICS_TOKEN}`).toString('base64')}`,
    'the token alone': METRICS_TOKEN,
  };
  for (const [why, authorization] of Object.entries(refused)) {
    const res = await api.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
    expectRefusal(t, res, { status: 401, code: 'Unauthorized', name: why });
    t.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"', why);
  }
  for (const authorization of [`Bearer ${METRICS_TOKEN}`, `bearer  ${METRICS_TOKEN}`]) {
    // Prometheus asks for OpenMetrics first; the text format it also accepts is what is answered.
    const accept = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
    const res = await api.inject({ method: 'GET', url: '/metrics', headers: { authorization, accept } });
    t.equal(res.statusCode, 200, authorization.split(' ')[0]);
    t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  }
  const plain = await api.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}`, accept: 'text/plain' } });
  t.equal(plain.statusCode, 200, 'Accept: text/plain alone is served too (no JSON/CSV negotiation here)');
});

t.test('the exposition names every metric, with the process and Node.js figures; the pool on PostgreSQL alone', async (t) => {
  const api = await buildTestApp(t, { config });
  const names = metricNames(await scrape(api));
  for (const name of [
    'http_request_duration_seconds',
    'http_rate_limited_total',
    'idempotency_requests_total',
    'webhook_outbox_pending',
    'webhook_outbox_oldest_pending_age_seconds',
    'webhook_endpoints_failing',
    'webhook_delivery_attempts_total',
    'webhook_delivery_attempt_duration_seconds',
    'mcp_tool_calls_total',
    'mcp_tokens_total',
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_version_info',
  ]) {
    t.ok(names.has(name), name);
  }
  const pool = ['db_pool_connections_max', 'db_pool_connections_in_use', 'db_pool_connections_idle', 'db_pool_requests_waiting'];
  for (const name of pool) t.equal(names.has(name), engine === 'postgres', `${name} on ${engine}`);
  if (engine === 'postgres') {
    const text = await scrape(api);
    t.equal(sample(text, 'db_pool_connections_max'), 10);
    t.equal(sample(text, 'db_pool_requests_waiting'), 0);
    t.ok(sample(text, 'db_pool_connections_idle')! >= 1, 'the scrape itself used a connection, now idle');
  }
  const naming = (await scrape(api)).split('\n').filter((line) => /[{,](instance|node|host|hostname|pid)="/.test(line));
  t.same(naming, [], 'no label names the node: Prometheus adds instance, so sum() across nodes adds up');
});

t.test('every answer is observed once, by operationId (other: none) and status, refusals included', async (t) => {
  const api = await buildTestApp(t, { config });
  await api.call('GET', '/categories', { as: null });
  await api.call('GET', '/categories.csv', { as: null });
  await api.call('GET', '/api/CategoryQuery', { as: null });
  await api.call('DELETE', '/tags/999999');
  await api.call('GET', '/billing/methods', { as: null });
  await api.call('GET', '/categories?format=xml', { as: null });
  await api.call('GET', '/no/such/path', { as: null });
  await api.inject({ method: 'GET', url: '/health' });
  const text = await scrape(api);
  const count = (operation: string, status: number) =>
    sample(text, 'http_request_duration_seconds_count', { operation, status_code: String(status) });
  t.equal(count('CategoryQuery', 200), 3, 'JSON, CSV and the predefined route alike');
  t.equal(count('CategoryQuery', 406), 1, 'a format refused before the operation ran');
  t.equal(count('DeleteTag', 404), 1);
  t.equal(count('BillingMethodQuery', 401), 1, 'refused before the body was read');
  t.equal(count('other', 404), 1, 'a path of no operation');
  t.equal(count('other', 200), 1, '/health');
  t.equal(sample(text, 'http_request_duration_seconds_count'), 8, 'nothing counted twice');
  t.ok(sample(text, 'http_request_duration_seconds_sum', { operation: 'CategoryQuery' })! > 0, 'durations in seconds');
  t.equal(
    sample(text, 'http_request_duration_seconds_bucket', { operation: 'CategoryQuery', status_code: '200', le: '+Inf' }),
    3,
    'a histogram: its buckets up to +Inf hold every request',
  );
  t.equal(sample(await scrape(api), 'http_request_duration_seconds_count', { operation: 'other', status_code: '200' }), 2, 'a scrape is counted once answered');
});

t.test('refusals of the rate limits are counted by operation and limit', async (t) => {
  const api = await buildTestApp(t, {
    data: buildDemoData(),
    company: DEMO_COMPANY_A,
    config: { ...config, RATE_LIMIT_MAX: 2, REBATE_LOOKUP_RATE_LIMIT_MAX: 1 },
  });
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await api.call('GET', '/categories', { as: null })).statusCode);
  t.same(statuses, [200, 200, 429]);
  const lookup = `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=MASSAGE100&ServiceId=102&IncludeConnectedServices=false`;
  const caller = await token(DEMO_COMPANY_A);
  // Another address each, so that only the per-caller limit can refuse.
  const looked = [];
  for (const remoteAddress of ['10.0.0.1', '10.0.0.2']) {
    looked.push((await api.inject({ method: 'GET', url: lookup, headers: { authorization: `Bearer ${caller}` }, remoteAddress })).statusCode);
  }
  t.same(looked, [200, 429]);
  const text = await scrape(api);
  t.equal(sample(text, 'http_rate_limited_total', { operation: 'CategoryQuery', limit: 'address' }), 1);
  t.equal(sample(text, 'http_rate_limited_total', { operation: 'GetRebateCodeBySign', limit: 'caller' }), 1);
  t.equal(sample(text, 'http_request_duration_seconds_count', { status_code: '429' }), 2, 'and observed as 429 answers');
});

t.test('a tool call refused by a rate limit is counted under its operation, as over HTTP', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: DEMO_COMPANY_A, config: { ...config, REBATE_LOOKUP_RATE_LIMIT_MAX: 1 } });
  const args = { CompanyId: DEMO_COMPANY_A, RebateCodeSign: 'MASSAGE100', ServiceId: 102, IncludeConnectedServices: false };
  const call = async () => rpcMessage(await postMcp(api, 'tools/call', { name: 'GetRebateCodeBySign', arguments: args }, { company: DEMO_COMPANY_A }));
  t.notOk((await call()).result.isError, 'the first lookup');
  t.match((await call()).result.structuredContent, { ResponseStatus: { ErrorCode: 'TooManyRequests' } }, 'the second is refused');
  t.equal(sample(await scrape(api), 'http_rate_limited_total', { operation: 'GetRebateCodeBySign', limit: 'caller' }), 1);
});

t.test('a wrong token counts against the per-address limit; a scrape with the right one is never limited', async (t) => {
  const api = await buildTestApp(t, { config: { ...config, RATE_LIMIT_MAX: 2 } });
  const wrong = { authorization: 'Bearer wrong' };
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await api.inject({ method: 'GET', url: '/metrics', headers: wrong })).statusCode);
  t.same(statuses, [401, 401, 429], 'guessing is limited');
  for (let i = 0; i < 3; i++) t.ok(await scrape(api), `scrape ${i + 1} answered`);
  t.equal(sample(await scrape(api), 'http_rate_limited_total', { operation: 'other', limit: 'address' }), 1);
});
