import { Writable } from 'node:stream';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { importData } from '../../src/import/import.js';
import { openStore } from '../../src/store/db.js';
import { assertContract, bearer, testConfig, WRITE } from '../helper.js';
import { freshDatabase } from '../test-store.js';
import { startReceiver } from './receiver.js';
import { A, DELIVERY_CONFIG, EVENT_TYPES, dataWithEndpoints, secretOfPath } from './setup.js';

// The event's context (docs/decisions.md, "Request ids and proxies"): the X-Request-Id of the
// write that recorded an event is kept with it, and the delivery attempt's log line carries
// it; receivers never see it.

t.test("a write's X-Request-Id is on its delivery attempt's log line, and never sent", async (t) => {
  const receiver = await startReceiver(t, secretOfPath);
  let text = '';
  const logStream = new Writable({ write: (chunk, _encoding, done) => {
    text += chunk.toString();
    done();
  } });
  const database = await freshDatabase();
  const store = await openStore(database.url);
  await importData(store, dataWithEndpoints(receiver.origin, [{ company: A, id: 'a-all', eventTypes: EVENT_TYPES }]));
  const config = testConfig({ ...DELIVERY_CONFIG, DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  const app = await buildApp(config, { store, logStream });
  t.teardown(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });

  const res = await app.inject({ method: 'DELETE', url: '/tags/102', headers: { ...(await bearer(A, [WRITE])), 'x-request-id': 'write-7f3a' } });
  assertContract('DELETE', '/tags/102', res);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['x-request-id'], 'write-7f3a');
  const [delivery] = await receiver.waitFor(1);
  t.ok(delivery, 'delivered');

  const stored = await store.db.selectFrom('webhook_deliveries').select(['request_id', 'traceparent']).execute();
  t.same(stored, [{ request_id: 'write-7f3a', traceparent: null }], 'kept with the event (no trace context while tracing is off)');

  // The attempt's line is written once the receiver has answered.
  const deadline = Date.now() + 5000;
  const attemptLine = () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((line) => line.msg === 'webhook delivery attempted');
  while (!attemptLine() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.match(attemptLine(), { requestId: 'write-7f3a', messageId: delivery.headers['webhook-id'], endpoint: 'a-all', statusCode: 200 });
  t.notOk(attemptLine()?.reqId, 'the attempt is not a line of the request itself');

  t.notMatch(JSON.stringify(delivery.headers), /write-7f3a|request-id|traceparent/i, 'not in the headers sent');
  t.notMatch(delivery.body, /write-7f3a/, 'nor in the body');
});
