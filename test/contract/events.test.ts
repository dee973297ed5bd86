// The webhook event catalogue is the operations' `x-webhook-events`. The contract also names
// each event in the WebhookEventType enum and in the Webhooks tag's table (event, operation,
// schema of `data`): both are derived here from the operations, so neither can drift. The
// `data` of an event is the answer of the write that recorded it (src/plugins/routes.ts
// hands the handler's result to the outbox), so its schema is the operation's 200 answer.

import { readFileSync } from 'node:fs';
import t from 'tap';
import { contract, ops, sorted } from './shared.js';

/** event type → the operation that declares it, from every operation's `x-webhook-events` */
const writers = new Map<string, string[]>();
for (const o of ops) {
  for (const type of (o.op['x-webhook-events'] ?? []) as string[]) writers.set(type, [...(writers.get(type) ?? []), o.operationId]);
}
const catalogue = sorted(writers.keys());

/** The rows of the Webhooks tag's table: | `type` | Operation [qualifier] | Schema | */
const tag = (contract.tags as Array<{ name: string; description: string }>).find((tag) => tag.name === 'Webhooks');
const rows = (tag?.description ?? '')
  .split('\n')
  .map((line) => /^\|\s*`([^`]+)`\s*\|\s*(\w+)[^|]*\|\s*(\w+)\s*\|$/.exec(line.trim()))
  .filter((match) => match !== null)
  .map(([, type, operationId, schema]) => ({ type, operationId, schema }));

t.test('every event type is declared by exactly one operation', async (t) => {
  t.ok(catalogue.length > 0, 'operations declare events');
  for (const [type, operations] of writers) t.equal(operations.length, 1, `${type}: written by ${operations.join(', ')}`);
});

t.test('the WebhookEventType enum is the catalogue', async (t) => {
  const values: string[] = contract.components.schemas.WebhookEventType.enum;
  t.strictSame(sorted(values), catalogue, 'the same event types');
  t.equal(new Set(values).size, values.length, 'each once');
  for (const [schema, property] of [['WebhookEvent', 'type'], ['WebhookMessage', 'EventType']]) {
    t.equal(contract.components.schemas[schema].properties[property].$ref, '#/components/schemas/WebhookEventType', `${schema}.${property} is a WebhookEventType`);
  }
});

t.test('the Webhooks tag has one row per event: its operation and the schema of its data', async (t) => {
  t.ok(tag, 'the Webhooks tag exists');
  t.strictSame(sorted(rows.map((row) => row.type)), catalogue, 'a row for each event type, once');
  for (const { type, operationId, schema } of rows) {
    const writer = writers.get(type)?.[0];
    t.equal(operationId, writer, `${type}: written by ${writer}`);
    const operation = ops.find((o) => o.operationId === writer);
    const answer = operation?.op.responses?.['200']?.content?.['application/json']?.schema;
    t.ok(contract.components.schemas[schema], `${type}: ${schema} is a schema of the contract`);
    t.equal(answer?.$ref, `#/components/schemas/${schema}`, `${type}: ${schema} is ${writer}'s 200 answer`);
  }
});

t.test('README and docs/webhooks.md link to the catalogue rather than copying it', async (t) => {
  for (const file of ['README.md', 'docs/webhooks.md']) {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const copied = text.split('\n').filter((line) => catalogue.some((type) => line.trim().startsWith(`| \`${type}\``)));
    t.strictSame(copied, [], `${file}: no table row of an event type`);
  }
});
