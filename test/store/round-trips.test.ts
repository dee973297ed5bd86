import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { webhookQueueRepository } from '../../src/store/repositories/webhook-queue.js';
import { countStatements } from '../../src/store/statements.js';
import { buildTestApp } from '../helper.js';
import { SUCCESSFUL_CALLS as CALLS } from '../operation-calls.js';
import { engine } from '../test-store.js';
import { dataWithEndpoints } from '../webhooks/setup.js';

// Every statement is a round trip to the database, costly over a network on PostgreSQL:
// no operation's success path runs more than 3 (transaction control aside), on either
// engine, unless BUDGETS below gives it more and says why.

const MAX_STATEMENTS = 3;
const A = DEMO_COMPANY_A;

/** DeleteResource: the read that decides (locking the row), the write that checks the decision again. */
const DELETE_RESOURCE =
  'the read that decides locks the resource row, and the write checks the decision again under that lock: two ' +
  'statements in one transaction, since a lock lasts until commit and, on PostgreSQL, a statement that waited ' +
  'for a lock reads from a snapshot taken before it';

/**
 * Operations that genuinely need more than MAX_STATEMENTS, per engine, and why. BEGIN and
 * COMMIT count: on PostgreSQL each is a round trip. SQLite's statements are calls in this
 * process, not round trips, and it has no data-modifying CTEs: a write to several tables is
 * a transaction of one INSERT or UPDATE each, where PostgreSQL writes them in one statement.
 */
const EVENT =
  'With its webhook event (docs/decisions.md, "Events and deliveries"): the write runs in a transaction (BEGIN, COMMIT) that also ' +
  'records the event, one INSERT … SELECT of its deliveries, so the event commits with the write or not at all.';

const BUDGETS: Record<string, { sqlite: number; postgres: number; why: string }> = {
  'CreateRebateCodeTransaction': {
    sqlite: 6,
    postgres: 5,
    why: `the code (with the booking) is read, then UPDATE and INSERT commit together: one CTE statement on PostgreSQL. ${EVENT}`,
  },
  'CreateRebateCodeTransaction, with a booking': { sqlite: 6, postgres: 5, why: `as above: the booking is read with the code. ${EVENT}` },
  'CreateArticleRebateCode, new buyer': {
    sqlite: 10,
    postgres: 8,
    why:
      'the article is read; then the company row lock that makes concurrent purchases by one ' +
      'new e-mail find one profile (it must come before the e-mail lookup, as a statement of its own), the lookup, ' +
      `the new customer, and the code with its links (one CTE statement on PostgreSQL, three INSERTs on SQLite). ${EVENT}`,
  },
  'CreateArticleRebateCode, no buyer': { sqlite: 6, postgres: 5, why: `the article is read; the code and its links are written. ${EVENT}` },
  'DeleteResource, deleted': { sqlite: 6, postgres: 6, why: `${DELETE_RESOURCE} Without Force a cheap locked check of the bookings comes first, so a 409 never reads the bookings. ${EVENT}` },
  'DeleteResource, deactivated': { sqlite: 5, postgres: 5, why: `${DELETE_RESOURCE} ${EVENT}` },
  DeleteCustomField: { sqlite: 5, postgres: 5, why: `the field is read with its lists and deleted. ${EVENT}` },
  DeleteTag: { sqlite: 4, postgres: 4, why: `one UPDATE … RETURNING. ${EVENT}` },
  CreateResourceType: {
    sqlite: 5,
    postgres: 4,
    why: `the type and its resource links, which a refusal of what was linked rolls back (one CTE statement on PostgreSQL). ${EVENT}`,
  },
  'CreateResourceType, no resources': { sqlite: 4, postgres: 4, why: `one INSERT. ${EVENT}` },
  CreateMessageTemplate: {
    sqlite: 6,
    postgres: 5,
    why: `the one read its rules need; then the template and its links (one CTE statement on PostgreSQL, two INSERTs on SQLite). ${EVENT}`,
  },
  UpdateWebhookEndpoint: {
    sqlite: 4,
    postgres: 4,
    why: 'the endpoint is found, then replaced, in the transaction every write runs in (BEGIN, COMMIT), which a disabled endpoint also ends its pending deliveries in.',
  },
  'CreateMessageTemplate, for all services': { sqlite: 5, postgres: 5, why: `the read its rules need and the template. ${EVENT}` },
};
const budget = (name: string) => BUDGETS[name]?.[engine] ?? MAX_STATEMENTS;

t.test(`each operation's success path runs at most ${MAX_STATEMENTS} statements, or its budget`, async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  for (const [name, method, url, options] of CALLS) {
    const { result, statements } = await countStatements(() => api.call(method as 'GET', url, options));
    t.equal(result.statusCode, 200, `${name} succeeded: ${result.body.slice(0, 200)}`);
    t.ok(statements <= budget(name), `${name}: ${statements} statements (budget ${budget(name)} on ${engine})`);
  }
});

t.test(`a webhook delivery costs a claim and a record: ${engine === 'postgres' ? 'one statement each' : 'two and four calls'}`, async (t) => {
  // The worker's side of an event (src/webhooks/worker.ts). On PostgreSQL the claim reads the
  // endpoint in its statement and the record writes the attempt in its; SQLite's RETURNING
  // and lack of data-modifying CTEs make them calls in this process, not round trips.
  const api = await buildTestApp(t, {
    company: A,
    data: dataWithEndpoints('http://127.0.0.1:9', [{ company: A, id: 'counted', eventTypes: ['tag.deactivated'] }]),
  });
  t.equal((await api.call('DELETE', '/tags/102')).statusCode, 200);
  const deliveries = webhookQueueRepository(api.app.store);
  const now = new Date(Date.now() + 1000);
  const lease = new Date(now.getTime() + 60_000).toISOString();
  const claim = await countStatements(() => deliveries.claim('counter', now.toISOString(), lease, 16));
  t.equal(claim.result.length, 1, 'the event is claimed');
  t.match(claim.result[0].endpoint, { url: 'http://127.0.0.1:9/counted', disabled: false }, 'with its endpoint');
  t.equal(claim.statements, engine === 'postgres' ? 1 : 2, `claim: ${claim.statements}`);
  const outcome = {
    attemptedAt: now.toISOString(), url: 'http://127.0.0.1:9/counted', statusCode: 200, durationMs: 1,
    succeeded: true, response: null, error: null, nextAttemptAt: null, gone: false,
  };
  const record = await countStatements(() => deliveries.record(claim.result[0].delivery, 'counter', outcome));
  t.equal(record.statements, engine === 'postgres' ? 1 : 4, `record: ${record.statements}`);
  const after = await api.app.store.db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'lease_owner']).execute();
  t.strictSame(after, [{ status: 'succeeded', attempts: 1, lease_owner: null }], 'the delivery moved on');
  t.equal((await api.app.store.db.selectFrom('webhook_attempts').select('id').execute()).length, 1, 'its attempt is recorded');
  const idle = await countStatements(() => deliveries.claim('counter', now.toISOString(), lease, 16));
  t.same([idle.result.length, idle.statements], [0, 1], 'nothing due: one statement');
});
