import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { runPaced } from '../../scripts/bench/load.js';
import { startReceiver } from '../../scripts/bench/receiver.js';
import { summarizeLoad, webhookTargets } from '../../scripts/bench/webhook-report.js';
import type { WebhookResult } from '../../scripts/bench/webhooks.js';
import { newWebhookSecret, secretKey } from '../../src/webhooks/secret.js';
import { send } from '../../src/webhooks/send.js';
import { signatureHeaders } from '../../src/webhooks/signing.js';

// The webhook measurement's parts that can be checked without a server under load: the
// receiver counts what the API's own sender delivers and verifies its signatures, the steady
// load keeps its pace, and the report's ratios and verdicts follow from the figures.

const deliver = (url: string, secret: string, id: string, body = '{"type":"x","timestamp":"t","data":{}}') =>
  send(url, signatureHeaders(id, new Date(), body, secretKey(secret)!), body, { allowPrivateTargets: true, timeoutMs: 5000 });

t.test('the receiver counts deliveries and duplicates per path, and verifies each signature', async (t) => {
  const secret = newWebhookSecret();
  const receiver = await startReceiver({ '/a': secret, '/b': secret });
  t.teardown(() => receiver.close());
  t.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'on 127.0.0.1 only');

  const first = receiver.next('/a', 5000);
  t.equal((await deliver(`${receiver.url}/a`, secret, 'msg_1')).statusCode, 200, 'answered 200');
  const arrival = await first;
  t.equal(arrival?.messageId, 'msg_1', 'next() resolves with the delivery');
  t.ok(arrival?.signed, "a delivery signed by the API's sender verifies");
  await deliver(`${receiver.url}/a`, secret, 'msg_1');
  await deliver(`${receiver.url}/a`, secret, 'msg_2');
  await deliver(`${receiver.url}/a`, newWebhookSecret(), 'msg_3');
  t.match(receiver.tally('/a'), { deliveries: 4, distinct: 3, badSignatures: 1 }, 'a resend is a duplicate; another secret does not verify');
  t.same(receiver.tally('/b'), { deliveries: 0, distinct: 0, badSignatures: 0 }, 'paths are counted apart');
  t.same([...receiver.messageIds('/a')].sort(), ['msg_1', 'msg_2', 'msg_3']);
  t.equal(await receiver.next('/b', 50), undefined, 'next() gives up after its time-out');
  await t.rejects(startReceiver({ '/c': 'not-a-secret' }), /not a whsec_ secret/, 'only whsec_ secrets');
});

t.test('the steady load sends rate × duration requests at its pace and counts their answers', async (t) => {
  let seen = 0;
  const server = createServer((_request, response) => {
    const nth = ++seen;
    // 50 ms an answer: 8 connections carry the 100 a second, at most 5 at a time.
    setTimeout(() => response.writeHead(nth % 10 === 0 ? 500 : 200).end(), 50);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const result = await runPaced(url, { method: 'GET', path: '/', headers: {} }, { rate: 100, connections: 8, duration: 0.5, expectStatus: 200, seed: 's' });
  t.equal(result.requests, 50, 'rate × duration requests, each answered');
  t.equal(seen, 50);
  t.equal(result.unexpected, 5, 'answers with another status are counted');
  t.ok(result.p50 >= 50 && result.p99 >= result.p50, `latency includes the server's 50 ms (p50 ${result.p50.toFixed(1)} ms)`);
});

t.test('ratios are with / without delivery per round, and the verdicts follow the figures', async (t) => {
  const run = (rps: number, p50: number, p99: number) => ({ rps, p50, p99, requests: 1, unexpected: 0, statuses: {} });
  const round = (on: number) => ({ full: { off: run(100, 10, 20), on: run(100 / on, 10 * on, 20 * on) }, steady: { off: run(10, 2, 4), on: run(10, 2.1, 4.2) } });
  const deliveries = {
    answered: 90, committed: 100, recorded: 100, received: 101, distinct: 100, duplicates: 1, missing: 0, unknown: 0, badSignatures: 0,
    statuses: { succeeded: 100 }, baselineCommitted: 80, baselineRecorded: 80, baselineReceived: 0, drainMs: 10,
  };
  const result: WebhookResult = {
    operation: 'Op', event: 'e', rate: 10, steadySeconds: 1, rounds: [round(1.2), round(2), round(1.5)],
    order: [{ answerMs: 5, lagMs: 1, sameData: true }, { answerMs: 5, lagMs: 2, sameData: true }], deliveries,
  };
  const full = summarizeLoad(result.rounds, 'full');
  t.equal(full.ratio.p50, 1.5, 'the median of the per-round ratios');
  t.equal(full.rps.on, 100 / 1.5);
  const verdicts = (r: WebhookResult) => webhookTargets({ sqlite: r }).map((c) => c.met);
  t.same(verdicts(result), [false, true, false, true, true], 'full load missed, light load within 10%, capacity (0.67×) missed, order and delivery met');
  t.same(verdicts({ ...result, rounds: [round(1.2), round(1.3), round(1.1)] })[2], true, 'a delivering node keeping 0.77× of the writes meets the capacity target');
  t.same(verdicts({ ...result, order: [...result.order, { answerMs: 5, lagMs: -0.5, sameData: true }] })[3], false, 'a delivery before its answer misses');
  t.same(verdicts({ ...result, deliveries: { ...deliveries, missing: 1 } })[4], false, 'an event never delivered misses');
  t.same(verdicts({ ...result, deliveries: { ...deliveries, baselineReceived: 1 } })[4], false, 'a delivery from the server without delivery misses');
});
