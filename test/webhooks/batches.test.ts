import t from 'tap';
import { webhookQueueRepository, type AttemptOutcome, type ClaimedDelivery } from '../../src/store/repositories/webhook-queue.js';
import { countStatements } from '../../src/store/statements.js';
import { recordEvent } from '../../src/store/repositories/webhook-messages.js';
import type { WebhookEventOf } from '../../src/contract/types.js';
import { buildTestApp } from '../helper.js';
import { engine } from '../test-store.js';
import { A, dataWithEndpoints } from './setup.js';

// Attempts are recorded in batches (docs/decisions.md, "Events and deliveries"): a batch of
// any length is one statement on PostgreSQL and one transaction of two on SQLite (BEGIN and
// COMMIT counted), and keeps what recording one at a time kept: the lease's owner alone moves
// a delivery on, a 410 disables its endpoint, every attempt is in the message history.

const BATCH_STATEMENTS = engine === 'postgres' ? 1 : 4;

/** The app (deliveries off: the test claims and records) with `endpoints` taking tag.deactivated. */
async function appWith(t: Parameters<typeof buildTestApp>[0], endpoints: string[]) {
  const data = dataWithEndpoints('http://127.0.0.1:9', endpoints.map((id) => ({ company: A, id, eventTypes: ['tag.deactivated'] })));
  const api = await buildTestApp(t, { company: A, data });
  return { api, queue: webhookQueueRepository(api.store) };
}

/** What DeleteTag answers for tag `id`: the data of its tag.deactivated event. */
const deactivatedTag = (id: number): WebhookEventOf<'tag.deactivated'>['data'] => ({
  Id: id, CompanyId: A, Name: `Tag ${id}`, Scope: 1, Color: '#2e86de', SortOrder: id, Active: false, CreatedDate: '2026-01-05T09:00:00.000Z',
});

/** Records `count` events (one per endpoint each) and claims them all for `owner`. */
async function claimed(api: Awaited<ReturnType<typeof appWith>>['api'], owner: string, count: number): Promise<ClaimedDelivery[]> {
  for (let i = 0; i < count; i++) await recordEvent(api.store, A, 'tag.deactivated', deactivatedTag(i + 1));
  const now = new Date(Date.now() + 5000);
  return webhookQueueRepository(api.store).claim(owner, now.toISOString(), new Date(now.getTime() + 60_000).toISOString(), 1000);
}

const outcome = (statusCode: number | null, nextAttemptAt: string | null = null): AttemptOutcome => ({
  attemptedAt: new Date().toISOString(), url: 'http://127.0.0.1:9/hook', statusCode, durationMs: 3,
  succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300, response: statusCode === null ? null : `answered ${statusCode}`,
  error: statusCode === null ? 'ECONNREFUSED' : null, nextAttemptAt, gone: statusCode === 410,
});

const deliveries = (api: Awaited<ReturnType<typeof appWith>>['api']) =>
  api.store.db.selectFrom('webhook_deliveries').select(['id', 'endpoint_id', 'status', 'attempts', 'lease_owner', 'next_attempt_at']).orderBy('id').execute();

t.test(`a batch of attempts is recorded in ${BATCH_STATEMENTS} statement(s), whatever its length (${engine})`, async (t) => {
  const { api, queue } = await appWith(t, ['hooks']);
  const held = await claimed(api, 'node-1', 40);
  t.equal(held.length, 40);
  const retryAt = new Date(Date.now() + 60_000).toISOString();
  const one = await countStatements(() => queue.recordAll('node-1', [{ delivery: held[0].delivery, outcome: outcome(200) }]));
  const many = await countStatements(
    () => queue.recordAll('node-1', held.slice(1).map(({ delivery }, i) => ({ delivery, outcome: i % 3 === 0 ? outcome(500, retryAt) : i % 3 === 1 ? outcome(null) : outcome(204) }))),
  );
  t.equal(one.statements, BATCH_STATEMENTS, `one attempt: ${one.statements}`);
  t.equal(many.statements, BATCH_STATEMENTS, `39 attempts: ${many.statements}`);

  const rows = await deliveries(api);
  t.ok(rows.every((r) => r.attempts === 1 && r.lease_owner === null), 'every delivery moved on, its lease ended');
  t.equal(rows.filter((r) => r.status === 'succeeded').length, 1 + 13, 'the 2xx ones succeeded');
  t.strictSame([...new Set(rows.filter((r) => r.status === 'pending').map((r) => r.next_attempt_at))], [retryAt], 'a retry is due when its outcome said');
  t.equal(rows.filter((r) => r.status === 'failed').length, 13, 'those with no next attempt failed');

  const listed = await api.call('GET', `/webhook/endpoints/hooks/messages?CompanyId=${A}&Take=100`);
  t.equal(listed.statusCode, 200);
  const attempts = listed.json().Results.flatMap((m: { Attempts: unknown[] }) => m.Attempts);
  t.equal(attempts.length, 40, 'every attempt is in the message history');
  t.match(attempts.find((a: { Error?: string }) => a.Error), { Status: 'Fail', Error: 'ECONNREFUSED', ResponseDurationMs: 3 });
  t.match(attempts.find((a: { ResponseStatusCode?: number }) => a.ResponseStatusCode === 500), { Status: 'Fail', Response: 'answered 500' });
});

t.test(`in a batch, only the lease's owner moves a delivery on; what another node saw is still recorded (${engine})`, async (t) => {
  const { api, queue } = await appWith(t, ['hooks']);
  const held = await claimed(api, 'node-1', 4);
  // Two of them have since been taken by another node (node-1's lease ran out).
  const taken = held.slice(0, 2).map((c) => c.delivery.id);
  await api.store.db.updateTable('webhook_deliveries').set({ lease_owner: 'node-2' }).where('id', 'in', taken).execute();
  await queue.recordAll('node-1', held.map(({ delivery }) => ({ delivery, outcome: outcome(200) })));
  const rows = await deliveries(api);
  t.strictSame(rows.filter((r) => taken.includes(r.id)).map((r) => [r.status, r.attempts, r.lease_owner]), [['pending', 0, 'node-2'], ['pending', 0, 'node-2']], "the holder's deliveries are left to it");
  t.strictSame(rows.filter((r) => !taken.includes(r.id)).map((r) => [r.status, r.attempts, r.lease_owner]), [['succeeded', 1, null], ['succeeded', 1, null]]);
  const attempts = await api.store.db.selectFrom('webhook_attempts').select('delivery_id').execute();
  t.equal(attempts.length, 4, 'all four attempts are recorded');
});

t.test(`a 410 in a batch disables its endpoint and ends its pending deliveries; the rest of the batch is recorded (${engine})`, async (t) => {
  const { api, queue } = await appWith(t, ['gone', 'kept']);
  const held = await claimed(api, 'node-1', 3);
  t.equal(held.length, 6, 'three events to each of two endpoints');
  // One delivery to `gone` answers 410; another to it waits unclaimed for a later attempt.
  const [first, ...others] = held.filter((c) => c.delivery.endpoint_id === 'gone');
  await queue.release([others[0].delivery.id], 'node-1');
  const batch = [
    { delivery: first.delivery, outcome: outcome(410) },
    { delivery: others[1].delivery, outcome: outcome(500, new Date(Date.now() + 60_000).toISOString()) },
    ...held.filter((c) => c.delivery.endpoint_id === 'kept').map(({ delivery }) => ({ delivery, outcome: outcome(200) })),
  ];
  await queue.recordAll('node-1', batch);
  const endpoints = await api.store.db.selectFrom('webhook_endpoints').select(['id', 'disabled']).where('id', 'in', ['gone', 'kept']).orderBy('id').execute();
  t.strictSame(endpoints, [{ id: 'gone', disabled: 1 }, { id: 'kept', disabled: 0 }], 'the endpoint that answered 410 is disabled');
  const rows = await deliveries(api);
  t.strictSame(rows.filter((r) => r.endpoint_id === 'gone').map((r) => r.status), ['failed', 'failed', 'failed'], "the endpoint's deliveries end, pending or held");
  t.strictSame(rows.filter((r) => r.endpoint_id === 'kept').map((r) => r.status), ['succeeded', 'succeeded', 'succeeded']);
});

t.test(`claims of one owner in the same millisecond take different deliveries (${engine})`, async (t) => {
  const { api, queue } = await appWith(t, ['hooks']);
  for (let i = 0; i < 6; i++) await recordEvent(api.store, A, 'tag.deactivated', deactivatedTag(i + 1));
  const now = new Date(Date.now() + 5000).toISOString();
  const lease = new Date(Date.now() + 65_000).toISOString();
  const first = await queue.claim('node-1', now, lease, 3);
  const second = await queue.claim('node-1', now, lease, 3);
  const ids = [...first, ...second].map((c) => c.delivery.id);
  t.strictSame([first.length, second.length], [3, 3], 'each claim answers what it took');
  t.equal(new Set(ids).size, 6, 'six deliveries, none twice');
  t.ok([...first, ...second].every((c) => c.endpoint?.url === 'http://127.0.0.1:9/hooks'), 'each with its endpoint');
});

t.test(`claims racing each other never take one delivery twice (${engine})`, async (t) => {
  const { api, queue } = await appWith(t, ['hooks']);
  for (let i = 0; i < 8; i++) await recordEvent(api.store, A, 'tag.deactivated', deactivatedTag(i + 1));
  const now = new Date(Date.now() + 5000).toISOString();
  const lease = new Date(Date.now() + 65_000).toISOString();
  // Started together: on SQLite both read the same candidates before either leases them.
  const [one, two] = await Promise.all([queue.claim('node-1', now, lease, 8), queue.claim('node-2', now, lease, 8)]);
  const ids = [...one, ...two].map((c) => c.delivery.id);
  t.equal(ids.length, 8, 'every delivery claimed once');
  t.equal(new Set(ids).size, 8);
  const owners = await api.store.db.selectFrom('webhook_deliveries').select(['id', 'lease_owner']).execute();
  for (const [claims, owner] of [[one, 'node-1'], [two, 'node-2']] as const) {
    t.ok(claims.every((c) => c.delivery.lease_owner === owner && owners.find((o) => o.id === c.delivery.id)?.lease_owner === owner), `${owner} holds what it was answered`);
  }
});
