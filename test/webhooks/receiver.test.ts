import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { startReceiver } from './receiver.js';
import { A, secretFor } from './setup.js';

// The tests' receiver (receiver.ts) holds every body it gets to the contract's `webhooks`
// section: a body its event's schema refuses fails the test that started the receiver, so no
// test that receives deliveries can leave the check out.

const secret = secretFor('hooks');
const tag = { Id: 102, CompanyId: A, Name: 'Regular', Scope: 1, Color: '#2e86de', SortOrder: 2, Active: false, CreatedDate: '2026-01-05T09:00:00.000Z' };
const event = (type: string, data: unknown) => ({ type, timestamp: '2026-11-23T10:00:00.000Z', data });

t.test("a body its event's schema refuses fails the receiver's test; one it takes does not", async (t) => {
  const failures: string[] = [];
  const teardowns: Array<() => unknown> = [];
  const receiver = await startReceiver({ teardown: (fn) => teardowns.push(fn), fail: (message) => failures.push(message) }, () => secret);
  t.teardown(async () => {
    for (const fn of teardowns) await fn();
  });
  let sent = 0;
  /** POSTs `body` signed with the endpoint's secret, as the server sends a delivery; answers what the receiver made of it. */
  const deliver = async (body: unknown) => {
    const text = JSON.stringify(body);
    const id = `msg_${++sent}`;
    const signature = new Webhook(secret).sign(id, new Date(), text);
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': signature };
    t.equal((await fetch(`${receiver.origin}/hooks`, { method: 'POST', headers, body: text })).status, 200, 'answered');
    const delivery = receiver.deliveries[sent - 1];
    t.notOk(delivery.refused, 'signed as the server signs');
    return { conforms: delivery.conforms, failures: failures.splice(0) };
  };

  t.strictSame(await deliver(event('tag.deactivated', tag)), { conforms: 'tag.deactivated', failures: [] }, 'a tag.deactivated with a TagResponse passes');
  const cases: Array<[string, unknown, RegExp]> = [
    ['data that is no TagResponse', event('tag.deactivated', { Id: 102 }), /must have required property 'Name'/],
    ["another event's data", event('resource.deleted', tag), /must have required property 'EmailNotification'/],
    ['no timestamp', { type: 'tag.deactivated', data: tag }, /must have required property 'timestamp'/],
    ['a timestamp that is no date-time', { ...event('tag.deactivated', tag), timestamp: 'yesterday' }, /must match format "date-time"/],
    ['an event type the contract does not declare', event('booking.created', tag), /has no event "booking.created"/],
  ];
  for (const [what, body, reason] of cases) {
    const { conforms, failures } = await deliver(body);
    t.equal(conforms, undefined, `${what}: does not conform`);
    t.equal(failures.length, 1, `${what}: fails the test once`);
    t.match(failures[0], reason, `${what}: says why`);
  }
});
