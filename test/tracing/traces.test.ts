import { createRequire } from 'node:module';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigError } from '../../src/config.js';
import { tracing, tracingWanted } from '../../src/tracing/tracing.js';
import { assertContract, TEST_SECRET, testConfig, token } from '../helper.js';
import { engine } from '../test-store.js';
import { prepareDatabase, serverDatabase, startServer, type ServerProcess } from '../robustness/server-process.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';
import { A, EVENT_TYPES, dataWithEndpoints, secretOfPath } from '../webhooks/setup.js';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// Traces (docs/decisions.md, "Traces"): a server process with the OTEL_* variables set exports
// its spans to an OTLP/HTTP receiver in this process, on the engine under test. The SDK patches
// Node's http when the process starts, so it runs as a process of its own, as a user runs it.

const SERVER = 2;
const CLIENT = 3;
// Values that must appear in no span: a query value, body values, a cookie.
const SIGN = 'VALUE1000';
const EMAIL = 'traced.customer@example.se';
const COOKIE = 'session=cookie-marker-4711';
const TEMPLATE_NAME = 'Body marker 0815';

async function call(node: ServerProcess, method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${node.url}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const response = { statusCode: res.status, headers: Object.fromEntries(res.headers), body: text, json: () => JSON.parse(text) };
  assertContract(method, url, response);
  return response;
}

t.test(`spans of requests, SQL statements and webhook attempts, with no values (${engine})`, async (t) => {
  const otlp = await startOtlpReceiver(t);
  const receiver = await startReceiver(t, secretOfPath);
  const db = await serverDatabase('booking-tracing-');
  t.teardown(db.cleanup);
  await prepareDatabase(db.url, dataWithEndpoints(receiver.origin, [{ company: A, id: 'a-all', eventTypes: EVENT_TYPES }]));
  const node = await startServer({
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_SECRET,
    DEMO_DATA: 'false',
    LOG_FORMAT: 'json',
    WEBHOOK_DELIVERY: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'booking-test',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  t.teardown(() => node.stop());
  const authorization = `Bearer ${await token(A)}`;
  const headers = { authorization, cookie: COOKIE };

  const lookupUrl = `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=${SIGN}&ServiceId=101&IncludeConnectedServices=true&CustomerEmail=${encodeURIComponent(EMAIL)}`;
  t.equal((await call(node, 'GET', lookupUrl, headers)).statusCode, 200, 'the lookup answers');
  const write = await call(node, 'POST', '/rebatecodes/transactions', headers, { RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Decrease' });
  t.equal(write.statusCode, 200, 'the write answers');
  const template = { TypeId: 1, Name: TEMPLATE_NAME, Title: 'Thanks', Body: `Write to ${EMAIL}` };
  t.equal((await call(node, 'POST', '/messages/templates', headers, template)).statusCode, 200, 'a write with body values');
  const callerTrace = '0af7651916cd43dd8448eb211c80319c';
  await call(node, 'GET', '/categories', { traceparent: `00-${callerTrace}-b7ad6b7169203331-01` });

  const [delivery] = await receiver.waitFor(1, 10000, (d) => d.payload?.type === 'rebatecode.transaction.created');
  t.ok(delivery, 'the write was delivered');
  for (const name of ['traceparent', 'tracestate', 'baggage']) t.notOk(delivery.headers[name], `the receiver sees no ${name} header`);

  const server = (operationId: string) => otlp.spans.find((s) => s.kind === SERVER && s.attributes['openapi.operation_id'] === operationId);
  const spans = await eventually('the spans', async () => {
    const writeSpan = server('CreateRebateCodeTransaction');
    // The write's attempt: the template's event is delivered too, in either order.
    const attempt = writeSpan && otlp.spans.find((s) => s.name === 'webhook attempt' && s.links.some((link) => link.spanId === writeSpan.spanId));
    return server('GetRebateCodeBySign') && server('CreateMessageTemplate') && server('CategoryQuery') && writeSpan && attempt && { writeSpan, attempt };
  });

  t.test('one server span per request, named by its route, with the operationId', async (t) => {
    const { writeSpan } = spans;
    t.equal(writeSpan.name, 'POST /rebatecodes/transactions');
    t.equal(writeSpan.attributes['http.route'], '/rebatecodes/transactions');
    t.equal(writeSpan.attributes['http.response.status_code'], 200);
    t.equal(writeSpan.resource['service.name'], 'booking-test', 'OTEL_SERVICE_NAME names the service');
    t.equal(otlp.spans.filter((s) => s.kind === SERVER && s.traceId === writeSpan.traceId).length, 1, 'one server span in its trace');
    t.equal(server('GetRebateCodeBySign')!.name, 'GET /rebatecodes/getbysign');
    t.equal(server('CategoryQuery')!.traceId, callerTrace, "a caller's traceparent is continued");
  });

  t.test('a child span per SQL statement, with its text and no values', async (t) => {
    const children = (parent: ReceivedSpan) => otlp.spans.filter((s) => s.parentSpanId === parent.spanId && s.kind === CLIENT);
    const statements = children(spans.writeSpan);
    t.ok(statements.length >= 3, `the write's statements are its children (${statements.length})`);
    const system = engine === 'postgres' ? 'postgresql' : 'sqlite';
    t.ok(statements.every((s) => s.attributes['db.system.name'] === system), `db.system.name is ${system}`);
    const texts = statements.map((s) => String(s.attributes['db.query.text']));
    t.ok(
      texts.some((text) => /update/i.test(text) && (engine === 'postgres' ? /\$1/.test(text) : /\?/.test(text))),
      'the decrease is there, with placeholders',
    );
    t.ok(statements.some((s) => s.name === 'INSERT'), 'named by the statement');
    const lookupTexts = children(server('GetRebateCodeBySign')!).map((s) => String(s.attributes['db.query.text']));
    t.ok(lookupTexts.length > 0, 'the lookup has statements');
    t.notOk(lookupTexts.some((text) => text.includes(SIGN)), 'no sign in the SQL');
  });

  t.test('no span carries a query value, a credential, a cookie or a body value', async (t) => {
    const lookup = server('GetRebateCodeBySign')!;
    t.equal(lookup.attributes['url.path'], '/rebatecodes/getbysign');
    t.match(String(lookup.attributes['url.query']), /^CompanyId=\[redacted\]&RebateCodeSign=\[redacted\]/, 'the query keeps its names alone');
    const everything = otlp.raw.join('\n');
    const jwt = authorization.slice('Bearer '.length);
    for (const [what, value] of [
      ['the sign', SIGN],
      ['the e-mail address', EMAIL],
      ['its URL-encoded form', encodeURIComponent(EMAIL)],
      ['the company id of the query', `CompanyId=${A}`],
      ['the bearer token', jwt],
      ['the cookie', 'cookie-marker-4711'],
      ['a body value', TEMPLATE_NAME],
    ]) {
      t.notOk(everything.includes(value), `nothing exported holds ${what}`);
    }
    t.strictSame(otlp.other, [], 'traces alone are exported');
  });

  t.test('the delivery attempt is a span linked to the write', async (t) => {
    const { writeSpan, attempt } = spans;
    t.equal(attempt.kind, CLIENT);
    t.not(attempt.traceId, writeSpan.traceId, 'a trace of its own');
    t.notOk(attempt.parentSpanId, 'a root span');
    t.strictSame(attempt.links, [{ traceId: writeSpan.traceId, spanId: writeSpan.spanId }], "linked to the write's server span");
    t.equal(attempt.attributes['webhook.message_id'], delivery.headers['webhook-id'], 'naming the message');
    t.equal(attempt.attributes['http.response.status_code'], 200);
  });

  t.test('log lines carry trace_id and span_id', async (t) => {
    const { writeSpan, attempt } = spans;
    const lines = node
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const ofWrite = lines.filter((l) => l.trace_id === writeSpan.traceId);
    t.ok(ofWrite.some((l) => l.msg === 'incoming request'), "the request's lines");
    t.ok(ofWrite.some((l) => l.msg === 'request completed'), "the request's last line");
    t.ok(ofWrite.every((l) => l.span_id === writeSpan.spanId), "with the server span's id");
    t.ok(
      lines.some((l) => l.msg === 'webhook delivery attempted' && l.trace_id === attempt.traceId),
      "the attempt's line carries the attempt's trace",
    );
  });
});

t.test('tracing is on only with an endpoint, and off loads nothing of the SDK', async (t) => {
  t.notOk(tracingWanted({}), 'no endpoint: off');
  t.ok(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), 'an endpoint: on');
  t.ok(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), 'a traces endpoint: on');
  t.notOk(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), 'OTEL_SDK_DISABLED: off');
  t.throws(
    () => tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }),
    new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, grpc; it is "http/xml".'),
    'a protocol the SDK does not speak stops start-up',
  );
  // This process builds the app with no endpoint set: nothing of the SDK is loaded. (The API
  // alone may be: prom-client looks for it, for exemplars.)
  const require = createRequire(import.meta.url);
  await buildApp(testConfig({ DATABASE_URL: 'file::memory:' }), {}).then((app) => app.close());
  t.notOk(tracing, 'tracing is off');
  const sdk = Object.keys(require.cache).filter((path) => path.includes('/@opentelemetry/') && !path.includes('/@opentelemetry/api/'));
  t.strictSame(sdk, [], 'no module of the SDK or its instrumentation loaded');
});

t.test(`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf exports protobuf (${engine})`, async (t) => {
  const otlp = await startOtlpReceiver(t);
  const db = await serverDatabase('booking-tracing-proto-');
  t.teardown(db.cleanup);
  const node = await startServer({
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_SECRET,
    DEMO_DATA: 'false',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
  t.teardown(() => node.stop());
  await call(node, 'GET', '/categories?Take=5', {});
  const body = await eventually('a protobuf export', async () => otlp.protobuf.find((b) => b.includes('GET /categories')));
  t.ok(body.includes('CategoryQuery'), 'the server span, with its operationId');
  t.ok(body.includes('booking-admin-api'), 'the service is named by default');
  t.strictSame(otlp.spans, [], 'no JSON');
});

t.test(`without an endpoint the logs carry no trace ids (${engine})`, async (t) => {
  const db = await serverDatabase('booking-tracing-off-');
  t.teardown(db.cleanup);
  const node = await startServer({ DATABASE_URL: db.url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false', LOG_FORMAT: 'json' });
  t.teardown(() => node.stop());
  await call(node, 'GET', '/categories', {});
  await eventually('the request to be logged', async () => node.logs().includes('request completed'));
  t.notOk(node.logs().includes('trace_id'), 'no trace ids in the logs');
});
