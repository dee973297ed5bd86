// The webhook event catalogue is the operations' `x-webhook-events`. The contract also names
// each event in the `webhooks` section (its body and headers), in the WebhookEventType enum
// and in the WebhookEvent union: all three are checked here against the operations, so none
// can drift. The `data` of an event is the answer of the write that recorded it
// (src/plugins/routes.ts hands the handler's result to the outbox), so its schema is the
// operation's 200 answer.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { contract, deref, ops, sorted, type Obj } from './shared.js';

/** event type → the operations that declare it, from every operation's `x-webhook-events` */
const writers = new Map<string, string[]>();
for (const o of ops) {
  for (const type of (o.op['x-webhook-events'] ?? []) as string[]) writers.set(type, [...(writers.get(type) ?? []), o.operationId]);
}
const catalogue = sorted(writers.keys());

const webhooks = (contract.webhooks ?? {}) as Record<string, Obj>;
const schemas = contract.components.schemas as Record<string, Obj>;
/** The `$ref` of an event's body, as its `webhooks` entry declares it. */
const bodyRef = (type: string): string | undefined => webhooks[type]?.post?.requestBody?.content?.['application/json']?.schema?.$ref;
/** An operation's 200 `application/json` answer schema, as written (a `$ref`, or inline). */
const answerOf = (operationId: string): unknown => ops.find((o) => o.operationId === operationId)?.op.responses?.['200']?.content?.['application/json']?.schema;

t.test('every event type is declared by exactly one operation', async (t) => {
  t.ok(catalogue.length > 0, 'operations declare events');
  for (const [type, operations] of writers) t.equal(operations.length, 1, `${type}: written by ${operations.join(', ')}`);
});

t.test('the webhooks section has an entry for each event type the operations name, and no other', async (t) => {
  t.strictSame(sorted(Object.keys(webhooks)), catalogue);
});

t.test("each webhook is a POST of its event: `type` const to the event, `data` the answer of the write", async (t) => {
  for (const [type, item] of Object.entries(webhooks)) {
    t.strictSame(Object.keys(item), ['post'], `${type}: a POST only`);
    const post = item.post as Obj;
    t.match(post.operationId, /^[A-Z]\w+$/, `${type}: has an operationId`);
    t.equal(post.requestBody?.required, true, `${type}: the body is required`);
    t.strictSame(Object.keys(post.requestBody?.content ?? {}), ['application/json'], `${type}: sent as JSON`);
    const ref = bodyRef(type);
    t.match(ref, /^#\/components\/schemas\/\w+Event$/, `${type}: the body is an event schema`);
    const event = schemas[String(ref).split('/').pop()!];
    if (!t.ok(event, `${type}: ${ref} resolves`)) continue;
    t.strictSame(sorted(event.required ?? []), ['data', 'timestamp', 'type'], `${type}: type, timestamp and data are required`);
    t.strictSame(event.properties.type, { type: 'string', const: type }, `${type}: its type is const ${type}`);
    t.equal(deref(event.properties.timestamp).format, 'date-time', `${type}: its timestamp is a date-time`);
    for (const writer of writers.get(type) ?? []) {
      const answer = answerOf(writer);
      t.ok(answer, `${type}: ${writer} answers JSON on 200`);
      t.strictSame(event.properties.data, answer, `${type}: data is exactly ${writer}'s 200 answer schema`);
    }
  }
});

t.test('each webhook declares the Standard Webhooks headers, each required', async (t) => {
  for (const [type, item] of Object.entries(webhooks)) {
    const headers = ((item.post?.parameters ?? []) as unknown[]).map((p) => deref(p));
    t.strictSame(sorted(headers.map((h) => h.name)), ['webhook-id', 'webhook-signature', 'webhook-timestamp'], `${type}: webhook-id, webhook-timestamp, webhook-signature`);
    for (const header of headers) t.match(header, { in: 'header', required: true, schema: { type: 'string' } }, `${type}: ${header.name}`);
  }
});

t.test('the WebhookEventType enum lists exactly the webhooks', async (t) => {
  const values: string[] = schemas.WebhookEventType.enum;
  t.strictSame(sorted(values), sorted(Object.keys(webhooks)), 'the same event types');
  t.equal(new Set(values).size, values.length, 'each once');
  t.equal(schemas.WebhookMessage.properties.EventType.$ref, '#/components/schemas/WebhookEventType', 'WebhookMessage.EventType is a WebhookEventType');
});

t.test('WebhookEvent is one of the event schemas, told apart by `type`', async (t) => {
  const union = schemas.WebhookEvent;
  const bodies = Object.keys(webhooks).map((type) => bodyRef(type));
  t.strictSame(sorted((union.oneOf ?? []).map((s: Obj) => s.$ref)), sorted(bodies.map(String)), 'oneOf: the bodies of the webhooks, each once');
  t.equal(union.discriminator?.propertyName, 'type', 'the discriminator is type');
  const mapping = (union.discriminator?.mapping ?? {}) as Record<string, string>;
  t.strictSame(sorted(Object.keys(mapping)), sorted(Object.keys(webhooks)), 'the mapping names each event type');
  for (const [type, ref] of Object.entries(mapping)) t.equal(ref, bodyRef(type), `${type} → the body of its webhook`);
  t.equal(schemas.WebhookMessage.properties.Payload.$ref, '#/components/schemas/WebhookEvent', "a message's Payload is a WebhookEvent");
});

t.test('README and docs/webhooks.md link to the catalogue rather than copying it', async (t) => {
  for (const file of ['README.md', 'docs/webhooks.md']) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const copied = text.split('\n').filter((line) => catalogue.some((type) => line.trim().startsWith(`| \`${type}\``)));
    t.strictSame(copied, [], `${file}: no table row of an event type`);
  }
});
