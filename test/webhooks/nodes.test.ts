import t, { type Test } from 'tap';
import { TEST_SECRET, token } from '../helper.js';
import { engine } from '../test-store.js';
import { prepareDatabase, serverDatabase, startServer, type ServerProcess } from '../robustness/server-process.js';
import { eventually, startReceiver } from './receiver.js';
import { A, EVENT_TYPES, dataWithEndpoints, secretOfPath } from './setup.js';

// Deliveries by server processes (docs/decisions.md, "Events and deliveries": at least
// once, on several nodes), on a database of the engine under test: a node killed during a delivery, and
// two nodes sharing one queue.

async function serverEnv(t: Test, origin: string, extra: Record<string, string> = {}) {
  const db = await serverDatabase('booking-webhooks-');
  t.teardown(db.cleanup);
  await prepareDatabase(db.url, dataWithEndpoints(origin, [{ company: A, id: 'a-all', eventTypes: EVENT_TYPES }]));
  return {
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_SECRET,
    DEMO_DATA: 'false',
    RATE_LIMIT_MAX: '0',
    WEBHOOK_DELIVERY: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    ...extra,
  };
}

async function started(t: Test, env: Record<string, string>): Promise<ServerProcess> {
  const node = await startServer(env);
  t.teardown(() => node.stop());
  return node;
}

const authorization = async () => `Bearer ${await token(A)}`;

t.test(`a node killed during a delivery: after a restart the message is sent again with the same webhook-id (${engine})`, async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  receiver.answer((_d, count) => (count === 1 ? { status: 200, never: true } : { status: 200 }));
  // A time-out of 1 s gives a lease of 3 s (two time-outs and a second).
  const env = await serverEnv(t, receiver.origin, { WEBHOOK_TIMEOUT_MS: '1000' });
  const first = await started(t, env);
  const res = await fetch(`${first.url}/tags/102`, { method: 'DELETE', headers: { authorization: await authorization() } });
  t.equal(res.status, 200);
  const [sent] = await receiver.waitFor(1);
  t.ok(sent, 'the first node sent it');
  await first.kill();

  const second = await started(t, env);
  const [again, resent] = await receiver.waitFor(2, 15000);
  t.ok(resent, 'sent again once the lease of the killed node ran out');
  t.equal(resent.headers['webhook-id'], again.headers['webhook-id'], 'with the same webhook-id');
  t.notOk(resent.refused, 'verified');
  const listed = await eventually('the attempt to be recorded', async () => {
    const answer = await fetch(`${second.url}/webhook/endpoints/a-all/messages`, { headers: { authorization: await authorization() } });
    const message = ((await answer.json()) as { Results: Array<{ Status: string; Attempts: unknown[] }> }).Results[0];
    return message?.Status === 'Success' && message;
  });
  t.equal(listed.Attempts.length, 1, 'the attempt the killed node made was never recorded; the one that succeeded was');
});

t.test(`two nodes deliver each message once (${engine})`, async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  const env = await serverEnv(t, receiver.origin, { WEBHOOK_POLL_INTERVAL_MS: '20' });
  const nodes = await Promise.all([started(t, env), started(t, env)]);
  const headers = { authorization: await authorization(), 'content-type': 'application/json' };
  const writes = 40;
  const answers = await Promise.all(
    Array.from({ length: writes }, (_, i) =>
      fetch(`${nodes[i % 2].url}/resourcetypes`, { method: 'POST', headers, body: JSON.stringify({ Name: `Type ${i}` }) }).then((r) => r.status),
    ),
  );
  t.strictSame(answers, Array(writes).fill(200), 'every write acknowledged');
  const got = await receiver.waitFor(writes, 20000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const ids = receiver.deliveries.map((d) => String(d.headers['webhook-id']));
  t.equal(new Set(ids).size, writes, 'every event delivered');
  t.equal(ids.length, writes, 'none delivered twice');
  t.ok(got.every((d) => !d.refused && d.payload?.type === 'resourcetype.created'), 'all verified');
  const names = new Set(receiver.deliveries.map((d) => (d.payload?.data as { Name: string }).Name));
  t.equal(names.size, writes, 'one delivery per write');
});
