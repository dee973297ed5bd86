import t from 'tap';
import { contract, deref } from '../contract-operations.js';
import { EVENT_TYPES, WRITES } from './setup.js';

// The event catalogue lives in the contract: the operations' `x-webhook-events`, the
// `webhooks` section and the WebhookEventType enum must agree, and setup.ts must have a
// write for each event, by the operation that names it.

const document = contract().document as any;
const written = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
  Object.values(item).flatMap((op) => (op && typeof op === 'object' && Array.isArray(op['x-webhook-events']) ? op['x-webhook-events'] : [])),
);

t.test('every event type of the catalogue is written by exactly one operation', async (t) => {
  const catalogue: string[] = document.components.schemas.WebhookEventType.enum;
  t.strictSame([...catalogue].sort(), [...EVENT_TYPES].sort(), 'each event type of the catalogue has its write in setup.ts');
  t.strictSame([...written].sort(), [...catalogue].sort(), 'x-webhook-events name each type once');
});

t.test('the webhooks section declares each event type, and setup.ts writes each with the operation that names it', async (t) => {
  t.strictSame(Object.keys(document.webhooks).sort(), [...EVENT_TYPES].sort(), 'a webhook per event type of setup.ts');
  for (const type of EVENT_TYPES) {
    const [method, url] = WRITES[type];
    const path = url.split('?')[0];
    const op = [...contract().operations.values()].find((op) => op.method === method && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
    const raw = op && document.paths[op.path][op.method.toLowerCase()];
    t.ok(raw?.['x-webhook-events']?.includes(type), `${type}: ${method} ${url} is ${op?.operationId}, which names it`);
  }
});

t.test('operations that write events act on a company (an event goes to its company’s endpoints)', async (t) => {
  for (const op of contract().operations.values()) {
    const raw = document.paths[op.path][op.method.toLowerCase()];
    if (!raw['x-webhook-events']) continue;
    const inQuery = (raw.parameters ?? []).some((p: unknown) => deref(document, p).name === 'CompanyId');
    const body = deref(document, raw.requestBody ?? {});
    const inBody = Boolean(body.content && deref(document, body.content['application/json'].schema).properties?.CompanyId);
    t.ok(inQuery || inBody, `${op.operationId} takes a CompanyId`);
  }
});
