import t from 'tap';
import { HAND_OFF_MS, recordEvent } from '../../src/store/repositories/webhook-messages.js';
import { createDeliveryWorker } from '../../src/webhooks/worker.js';
import { buildTestApp, READ, SUPERADMIN } from '../helper.js';
import { eventually, startReceiver, type Receiver } from './receiver.js';
import { A, B, DELIVERY_CONFIG, EVENT_TYPES, WRITES, dataWithEndpoints, secretOfPath, type TestEndpoint } from './setup.js';

// Webhook deliveries in one process (docs/decisions.md, "Events and deliveries"): a local receiver on 127.0.0.1
// verifies every delivery with the Standard Webhooks reference library, and checks its body
// against the contract's `webhooks` section (receiver.ts). The schedule is shortened by
// WEBHOOK_RETRY_SCHEDULE.

const messagesOf = (endpoint: string, query = '') => `/webhook/endpoints/${endpoint}/messages?CompanyId=${A}${query}`;

/** The app with deliveries on and `endpoints` (by default company A's `a-all`, taking every event) sending to `receiver`. */
const appFor = (
  t: Parameters<typeof buildTestApp>[0],
  receiver: Receiver,
  config: Record<string, unknown> = {},
  endpoints: TestEndpoint[] = [{ company: A, id: 'a-all', eventTypes: EVENT_TYPES }],
) => buildTestApp(t, { company: A, config: { ...DELIVERY_CONFIG, ...config }, data: dataWithEndpoints(receiver.origin, endpoints) });

t.test('each event is delivered, signed, to every endpoint of its company that subscribes and is not disabled', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  const api = await appFor(t, receiver, {}, [
    { company: A, id: 'a-all', eventTypes: EVENT_TYPES },
    { company: A, id: 'a-some', eventTypes: ['tag.deactivated', 'rebatecode.created', 'booking.created'] },
    { company: A, id: 'a-off', eventTypes: EVENT_TYPES, disabled: true },
    { company: B, id: 'b-all', eventTypes: EVENT_TYPES },
  ]);

  const answers = new Map<string, unknown>();
  for (const type of EVENT_TYPES) {
    const [method, url, options] = WRITES[type];
    const res = await api.call(method, url, options);
    t.equal(res.statusCode, 200, `${type}: ${method} ${url}`);
    answers.set(type, res.json());
  }

  const all = await receiver.waitFor(EVENT_TYPES.length, 10000, (d) => d.path === '/a-all');
  const some = await receiver.waitFor(2, 5000, (d) => d.path === '/a-some');
  t.equal(all.length, EVENT_TYPES.length, 'every event reached the endpoint that takes them all');
  for (const delivery of all) {
    t.notOk(delivery.refused, `verified by the reference library ${delivery.refused ?? ''}`);
    t.equal(delivery.headers['content-type'], 'application/json');
    t.match(delivery.headers['webhook-id'], /^msg_[0-9a-f]{32}$/);
  }
  t.strictSame(all.map((d) => d.payload?.type).sort(), [...EVENT_TYPES].sort(), 'one delivery per event type');
  t.strictSame(all.map((d) => d.conforms).sort(), [...EVENT_TYPES].sort(), "each body is its event's in the contract's webhooks section");
  for (const delivery of all) {
    const type = delivery.payload!.type as (typeof EVENT_TYPES)[number];
    t.strictSame(delivery.payload!.data, answers.get(type), `${type}: data is the operation's JSON answer`);
    t.match(delivery.payload!.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  t.equal(new Set(all.map((d) => d.headers['webhook-id'])).size, all.length, 'each event has its own webhook-id');

  t.strictSame(some.map((d) => d.payload?.type).sort(), ['rebatecode.created', 'tag.deactivated'], 'EventTypes filter what an endpoint gets');
  for (const delivery of some) {
    const same = all.find((d) => d.payload?.type === delivery.payload?.type)!;
    t.equal(delivery.headers['webhook-id'], same.headers['webhook-id'], 'one message id for the event, whichever endpoint gets it');
  }

  // Give a wrong delivery time to arrive before saying none did.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(receiver.deliveries.filter((d) => d.path === '/a-off').length, 0, 'a disabled endpoint gets nothing');
  t.equal(receiver.deliveries.filter((d) => d.path === '/b-all').length, 0, "another company's endpoint gets nothing");

  const listed = await api.call('GET', messagesOf('a-all', '&Take=100'));
  t.equal(listed.statusCode, 200);
  t.equal(listed.json().Total, EVENT_TYPES.length);
  for (const message of listed.json().Results) t.match(message, { Status: 'Success', Attempts: [{ Status: 'Success', ResponseStatusCode: 200 }] });
});

t.test('a delivery starts once the answer to its write is sent, never before', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  // Only the write's nudge can start the delivery: the queue is not polled meanwhile.
  const api = await appFor(t, receiver, { WEBHOOK_POLL_INTERVAL_MS: 600_000 });
  let answeredAt = 0;
  // Each answer is held back after the commit; a delivery started at the commit would arrive meanwhile.
  api.app.addHook('onSend', async () => new Promise((resolve) => setTimeout(resolve, 300)));
  api.app.addHook('onResponse', async () => {
    answeredAt = Date.now();
  });
  t.equal((await api.call('DELETE', '/tags/102')).statusCode, 200);
  const [delivery] = await receiver.waitFor(1);
  t.ok(delivery, 'delivered');
  t.ok(answeredAt > 0 && delivery.at >= answeredAt, `the delivery came ${delivery.at - answeredAt} ms after the answer`);
});

t.test('a node with no room left claims the rest as its attempts end', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 200, holdMs: 50 }));
  // One attempt at a time, and no polling: only the backlog brings the other events in.
  const api = await appFor(t, receiver, { WEBHOOK_CONCURRENCY: 1, WEBHOOK_POLL_INTERVAL_MS: 600_000 });
  const decrease = { body: { RebateCodeId: 101, Amount: 1, Usage: 0, ChangeType: 'Decrease' } };
  const writes = await Promise.all(Array.from({ length: 5 }, () => api.call('POST', '/rebatecodes/transactions', decrease)));
  t.ok(writes.every((w) => w.statusCode === 200));
  const got = await receiver.waitFor(5, 5000);
  t.equal(got.length, 5, 'every event delivered, one after another');
  t.equal(new Set(got.map((d) => d.headers['webhook-id'])).size, 5);
  for (let i = 1; i < got.length; i++) t.ok(got[i].at - got[i - 1].at >= 40, 'never two at once');
});

t.test('an event its node does not deliver is taken by another node after the hand-off', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  // The writing node only serves; a worker of another node polls the same database.
  const api = await appFor(t, receiver, { WEBHOOK_DELIVERY: false });
  const other = createDeliveryWorker(api.store, {
    schedule: [100], timeoutMs: 2000, pollIntervalMs: 20, concurrency: 4, allowPrivateTargets: true, stopGraceMs: 100, log: api.app.log,
  });
  other.start();
  t.teardown(() => other.stop());
  t.equal((await api.call('DELETE', '/tags/102')).statusCode, 200);
  const answeredAt = Date.now();
  const [delivery] = await receiver.waitFor(1, 5000);
  t.ok(delivery, 'delivered by the other node');
  const created = Date.parse(delivery.payload!.timestamp);
  t.ok(delivery.at - created >= HAND_OFF_MS, `not before the hand-off: ${delivery.at - created} ms after the event`);
  t.ok(delivery.at - answeredAt < HAND_OFF_MS + 2000, 'soon after it');
});

t.test('an event that no endpoint takes leaves nothing to claim', async (t) => {
  const api = await buildTestApp(t, {
    company: A,
    data: dataWithEndpoints('http://127.0.0.1:9', [{ company: A, id: 'a-tags', eventTypes: ['tag.deactivated'] }]),
  });
  t.match(await recordEvent(api.store, A, 'tag.deactivated', { Id: 1 }), /^msg_[0-9a-f]{32}$/, 'taken: its message id');
  t.equal(await recordEvent(api.store, A, 'resource.deleted', { Id: 1 }), null, 'no endpoint takes it: nothing');
  t.equal(await recordEvent(api.store, B, 'tag.deactivated', { Id: 1 }), null, "another company's endpoint does not count");
  t.equal((await api.store.db.selectFrom('webhook_deliveries').select('id').execute()).length, 1);
});

t.test('a refused write records no event', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  const api = await appFor(t, receiver);
  t.equal((await api.call('DELETE', '/resource/101')).statusCode, 409, 'bookings block deleting resource 101');
  t.equal((await api.call('DELETE', '/tags/999999')).statusCode, 404);
  t.equal((await api.call('POST', '/rebatecodes/transactions', { body: { RebateCodeId: 101, Amount: 1e9, Usage: 0, ChangeType: 'Decrease' } })).statusCode, 400);
  const rows = await api.store.db.selectFrom('webhook_deliveries').selectAll().execute();
  t.strictSame(rows, [], 'nothing in the outbox');
});

t.test('retries: on the schedule, with the same webhook-id, until a 2xx; every attempt is listed', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer((_d, count) => (count <= 2 ? { status: 500, body: 'try later' } : { status: 204 }));
  const api = await appFor(t, receiver);
  t.equal((await api.call('DELETE', '/tags/102')).statusCode, 200);

  const [first, second, third] = await receiver.waitFor(3);
  t.ok(third, 'three attempts');
  t.equal(new Set([first, second, third].map((d) => d.headers['webhook-id'])).size, 1, 'the same webhook-id on every retry');
  t.ok(second.at - first.at >= 100, `the first retry waited the schedule's 100 ms (${second.at - first.at} ms)`);
  t.ok(third.at - second.at >= 200, `the second retry waited 200 ms (${third.at - second.at} ms)`);

  const message = await eventually('the third attempt to be recorded', async () => {
    const res = await api.call('GET', messagesOf('a-all'), { as: [READ] });
    const found = res.json().Results[0];
    return found?.Status === 'Success' && found;
  });
  t.match(message, { EventType: 'tag.deactivated', Id: first.headers['webhook-id'], Payload: { type: 'tag.deactivated' } });
  t.notOk('NextAttempt' in message, 'no next attempt once delivered');
  t.strictSame(message.Attempts.map((a: { ResponseStatusCode: number }) => a.ResponseStatusCode), [500, 500, 204]);
  t.strictSame(message.Attempts.map((a: { Status: string }) => a.Status), ['Fail', 'Fail', 'Success']);
  t.equal(message.Attempts[0].Response, 'try later', "the start of the receiver's answer");
  t.equal(message.Attempts[0].Url, `${receiver.origin}/a-all`);
  for (const attempt of message.Attempts) t.ok(attempt.ResponseDurationMs >= 0);
});

t.test('retries run out: the message fails after the last retry of the schedule', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 500 }));
  const api = await appFor(t, receiver);
  t.equal((await api.call('DELETE', '/tags/102')).statusCode, 200);
  const message = await eventually('the message to fail', async () => {
    const found = (await api.call('GET', messagesOf('a-all'))).json().Results[0];
    return found?.Status === 'Fail' && found;
  });
  t.equal(message.Attempts.length, 4, 'the first attempt and the three retries of the schedule');
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.equal(receiver.deliveries.length, 4, 'nothing after the last retry');
  const failed = (await api.call('GET', messagesOf('a-all', '&Status=Fail'))).json();
  t.equal(failed.Total, 1, 'Status filters the list');
  t.equal((await api.call('GET', messagesOf('a-all', '&Status=Success'))).json().Total, 0);
});

t.test('Retry-After: a later time asked for by the receiver is honoured', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer((_d, count) => (count === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
  const api = await appFor(t, receiver);
  await api.call('DELETE', '/tags/102');
  const [first, second] = await receiver.waitFor(2, 5000);
  t.ok(second, 'retried');
  t.ok(second.at - first.at >= 1000, `waited Retry-After's second, not the schedule's 100 ms (${second.at - first.at} ms)`);
});

t.test('410 Gone disables the endpoint and fails its messages', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 410 }));
  const api = await appFor(t, receiver);
  await api.call('DELETE', '/tags/102');
  const message = await eventually('the message to fail', async () => {
    const found = (await api.call('GET', messagesOf('a-all'))).json().Results[0];
    return found?.Status === 'Fail' && found;
  });
  t.equal(message.Attempts.length, 1, 'no retry after 410');
  const endpoint = await api.store.db.selectFrom('webhook_endpoints').select('disabled').where('id', '=', 'a-all').executeTakeFirstOrThrow();
  t.equal(endpoint.disabled, 1, 'the endpoint is disabled');
  await api.call('DELETE', '/tags/101');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(receiver.deliveries.length, 1, 'a disabled endpoint gets no new events');
});

t.test('disabling an endpoint ends its pending messages', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 500 }));
  const api = await appFor(t, receiver, { WEBHOOK_RETRY_SCHEDULE: '1h' });
  await api.call('DELETE', '/tags/102');
  const pending = await eventually('the first attempt', async () => {
    const found = (await api.call('GET', messagesOf('a-all'))).json().Results[0];
    return found?.Attempts.length === 1 && found;
  });
  t.equal(pending.Status, 'Pending');
  t.ok(Date.parse(pending.NextAttempt) - Date.now() > 50 * 60 * 1000, 'the next attempt is an hour away');
  const disabled = await api.call('PUT', `/webhook/endpoints/a-all?CompanyId=${A}`, { body: { Url: `${receiver.origin}/a-all`, EventTypes: [...EVENT_TYPES], Disabled: true } });
  t.equal(disabled.statusCode, 200);
  const after = (await api.call('GET', messagesOf('a-all'))).json().Results[0];
  t.equal(after.Status, 'Fail');
  t.notOk('NextAttempt' in after);
});

t.test('no redirect is followed; a receiver that never answers times out', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer((d) => (d.path === '/a-all' ? { status: 307, headers: { location: `${receiver.origin}/elsewhere` } } : d.path === '/slow' ? { status: 200, never: true } : { status: 200 }));
  const api = await appFor(t, receiver, { WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT_MS: 300 }, [
    { company: A, id: 'a-all', eventTypes: ['tag.deactivated'] },
    { company: A, id: 'slow', eventTypes: ['tag.deactivated'] },
  ]);
  await api.call('DELETE', '/tags/102');
  const redirected = await eventually('the redirected attempt', async () => (await api.call('GET', messagesOf('a-all'))).json().Results[0]?.Attempts[0]);
  t.match(redirected, { ResponseStatusCode: 307, Status: 'Fail' });
  const timedOut = await eventually('the timed-out attempt', async () => (await api.call('GET', messagesOf('slow'))).json().Results[0]?.Attempts[0]);
  t.match(timedOut, { Status: 'Fail', Error: 'no answer within 300 ms' });
  t.notOk('ResponseStatusCode' in timedOut);
  t.equal(receiver.deliveries.filter((d) => d.path === '/elsewhere').length, 0, 'the Location was not followed');
});

t.test('deliveries to one host share a kept connection; one the receiver dropped is retried at once on a new one', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  // The second delivery comes on the kept connection, which the receiver then drops unanswered.
  receiver.answer((_d, count) => (count === 2 ? { status: 200, drop: true } : { status: 200 }));
  const api = await appFor(t, receiver, { WEBHOOK_RETRY_SCHEDULE: '1h' });
  const decrease = { body: { RebateCodeId: 101, Amount: 1, Usage: 0, ChangeType: 'Decrease' } };
  const delivered = (count: number) =>
    eventually(`${count} delivered messages`, async () => {
      const found = (await api.call('GET', messagesOf('a-all'))).json().Results;
      return found.length === count && found.every((m: { Status: string }) => m.Status === 'Success') && found;
    });
  // One at a time: each delivery finds the connection of the one before free.
  for (let count = 1; count <= 3; count++) {
    t.equal((await api.call('POST', '/rebatecodes/transactions', decrease)).statusCode, 200);
    await delivered(count);
  }
  const messages = await delivered(3);
  const ids = receiver.deliveries.map((d) => d.headers['webhook-id']);
  t.equal(ids.length, 4, 'three messages, one sent twice');
  t.equal(ids[1], ids[2], 'the dropped one again, with its webhook-id');
  t.equal(receiver.connections(), 2, 'one connection, and a new one after the drop');
  for (const message of messages) t.equal(message.Attempts.length, 1, `${message.Id}: one attempt, the retry on a new connection within it`);
  t.strictSame(messages.map((m: { Id: string }) => m.Id).sort(), [...new Set(ids)].sort());
});

t.test('the address policy holds at connect time, on the address the name resolved to', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  const port = new URL(receiver.origin).port;
  const resolved: string[] = [];
  // A name that only this resolver knows: a delivery can reach the receiver only through the
  // address the sender checked, never by resolving the name again.
  const resolveHost = async (hostname: string) => {
    resolved.push(hostname);
    if (hostname === 'receiver.hooks.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  const endpoints = [
    { company: A, id: 'named', eventTypes: ['tag.deactivated'], url: `http://receiver.hooks.test:${port}/named` },
    { company: A, id: 'literal', eventTypes: ['tag.deactivated'], url: `http://127.0.0.1:${port}/literal` },
  ];
  const config = { ...DELIVERY_CONFIG, WEBHOOK_RETRY_SCHEDULE: '1h' };

  t.test('refused when private targets are not allowed', async (t) => {
    const api = await buildTestApp(t, { company: A, config: { ...config, WEBHOOK_ALLOW_PRIVATE_TARGETS: false }, resolveHost, data: dataWithEndpoints(receiver.origin, endpoints) });
    await api.call('DELETE', '/tags/102');
    const named = await eventually('the named attempt', async () => (await api.call('GET', messagesOf('named'))).json().Results[0]?.Attempts[0]);
    const literal = await eventually('the literal attempt', async () => (await api.call('GET', messagesOf('literal'))).json().Results[0]?.Attempts[0]);
    t.match(named, { Status: 'Fail', Error: 'refused: receiver.hooks.test resolves to 127.0.0.1, which is not a public address' });
    t.match(literal, { Status: 'Fail', Error: 'refused: 127.0.0.1 is not a public address' });
    t.equal(receiver.deliveries.length, 0, 'nothing reached the receiver');
  });

  t.test('delivered to the checked address when they are allowed', async (t) => {
    const api = await buildTestApp(t, { company: A, config, resolveHost, data: dataWithEndpoints(receiver.origin, endpoints) });
    await api.call('DELETE', '/tags/102');
    const got = await receiver.waitFor(2, 5000);
    t.strictSame(got.map((d) => d.path).sort(), ['/literal', '/named']);
    t.equal(got.find((d) => d.path === '/named')!.headers.host, `receiver.hooks.test:${port}`, 'the Host header keeps the name');
    t.ok(resolved.includes('receiver.hooks.test'));
  });
});

t.test('the messages list: roles, company, paging, CSV', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  const api = await appFor(t, receiver, {}, [
    { company: A, id: 'a-all', eventTypes: EVENT_TYPES },
    { company: B, id: 'b-all', eventTypes: EVENT_TYPES },
  ]);
  for (const tag of [101, 102]) await api.call('DELETE', `/tags/${tag}`);
  await receiver.waitFor(2);
  t.equal((await api.call('GET', messagesOf('a-all'), { as: [READ] })).statusCode, 200, 'the read role may list');
  t.equal((await api.call('GET', messagesOf('a-all'), { as: null })).statusCode, 401);
  t.equal((await api.call('GET', messagesOf('a-all'), { as: [] })).statusCode, 401, 'no admin role');
  t.equal((await api.call('GET', `/webhook/endpoints/a-all/messages`, { company: B })).statusCode, 404, "another company's endpoint is not found");
  t.equal((await api.call('GET', messagesOf('a-all'), { company: B })).statusCode, 401, "another company's CompanyId needs superadmin");
  t.equal((await api.call('GET', messagesOf('a-all'), { as: [SUPERADMIN], company: B })).statusCode, 200, 'a superadmin names any company');
  t.equal((await api.call('GET', messagesOf('missing'))).statusCode, 404);

  const page = (await api.call('GET', messagesOf('a-all', '&Skip=1&Take=1'))).json();
  t.match(page, { Offset: 1, Total: 2 });
  t.equal(page.Results.length, 1);
  const newest = (await api.call('GET', messagesOf('a-all', '&Take=1'))).json().Results[0];
  t.equal(newest.Payload.data.Id, 102, 'newest first');

  const csv = await api.call('GET', messagesOf('a-all', '&format=csv'));
  t.equal(csv.statusCode, 200);
  t.match(csv.body, /^Id,EventType,Timestamp,Status,NextAttempt,Payload,Attempts\r\n/);
});

t.test('a node that stops lets the attempt in flight finish', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 200, holdMs: 300 }));
  const api = await appFor(t, receiver);
  await api.call('DELETE', '/tags/102');
  await receiver.waitFor(1);
  await api.app.close();
  const row = await api.store.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
  t.match(row, { status: 'succeeded', attempts: 1, lease_owner: null });
});

t.test('a node that stops gives back an attempt that does not finish in time, to be sent again', async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer(() => ({ status: 200, never: true }));
  const api = await appFor(t, receiver, { WEBHOOK_TIMEOUT_MS: 1000 });
  await api.call('DELETE', '/tags/102');
  await receiver.waitFor(1);
  const started = Date.now();
  await api.app.close();
  t.ok(Date.now() - started < 1000, 'the grace ended before the attempt would time out');
  const row = await api.store.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
  t.match(row, { status: 'pending', attempts: 0, lease_owner: null, lease_expires_at: null }, 'given back, unattempted');
  t.equal(await api.store.db.selectFrom('webhook_attempts').select('id').executeTakeFirst(), undefined, 'no attempt recorded');
});
