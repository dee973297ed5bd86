import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import { openStore } from '../../src/store/db.js';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, token } from '../helper.js';
import { engine } from '../test-store.js';
import { dataWithEndpoints } from '../webhooks/setup.js';
import { otherSessionsEnded, prepareDatabase, serverDatabase, startServer, type ServerProcess } from './server-process.js';

// Retried writes (docs/decisions.md, "Retried writes") where they are hardest to keep: many
// copies of one keyed write at once on two server processes sharing one database of the
// engine under test, and a node SIGKILLed while keyed writes stream in. One key, one run: a
// copy sent meanwhile replays the first answer or is refused 409 with Retry-After: 1, never
// runs twice, never gets a 5xx; a copy sent later replays the answer. A crash before the
// commit leaves neither key nor change; after it, both, and the retry replays.

const A = DEMO_COMPANY_A;
const CARD = { id: 9201, sign: 'IDEM-VALUE-100' };
const GIFT = { id: 9202, sign: 'IDEM-CRASH-GIFT' };
const TRANSACTIONS = '/rebatecodes/transactions';
const TEMPLATES = '/messages/templates';
const lookup = (sign: string) =>
  `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=${sign}&ServiceId=101&IncludeConnectedServices=false`;

/**
 * The demo data with two cards of this test's own (a value card holding 100, a gift card
 * holding 0) and one enabled webhook endpoint of company A subscribed to the events of the
 * writes sent here, so that every write that runs records exactly one event (deliveries
 * stay off: startServer sets WEBHOOK_DELIVERY=false, the outbox is still written).
 */
function testData() {
  const demo = dataWithEndpoints('http://127.0.0.1:9', [
    { company: A, id: 'idem-events', eventTypes: ['rebatecode.transaction.created', 'messagetemplate.created'] },
  ]);
  const validFrom = new Date(Date.now() - 86400000).toISOString();
  return {
    ...demo,
    RebateCodes: [
      ...demo.RebateCodes,
      {
        CompanyId: A, Id: CARD.id, RebateCodeSign: CARD.sign, Name: 'Idempotency value card', RebateCodeTypeId: 4,
        RebateCodeValue: 100, RemainingAmount: 100, RebateCodeStatusId: 1, ValidFrom: validFrom, ValidTo: '2099-12-31T23:59:59.000Z',
      },
      {
        CompanyId: A, Id: GIFT.id, RebateCodeSign: GIFT.sign, Name: 'Idempotency crash gift card', RebateCodeTypeId: 5,
        RebateCodeValue: 1000, RemainingAmount: 0, RebateCodeStatusId: 1, ValidFrom: validFrom, ValidTo: '2099-12-31T23:59:59.000Z',
      },
    ],
  };
}

interface Answer {
  status: number;
  body: any;
  /** the Idempotent-Replayed header, null when absent */
  replayed: string | null;
  retryAfter: string | null;
  /** the raw text, for messages */
  text: string;
}

async function send(url: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, replayed: res.headers.get('idempotent-replayed'), retryAfter: res.headers.get('retry-after'), text };
}

/** Answers by status (and replay), e.g. { "200": 1, "200 replayed": 30, "409": 19 }. */
const tally = (answers: Answer[]) =>
  answers.reduce<Record<string, number>>((count, a) => {
    const kind = `${a.status}${a.replayed ? ' replayed' : ''}`;
    return { ...count, [kind]: (count[kind] ?? 0) + 1 };
  }, {});

const brief = (a: Answer) => `${a.status}${a.replayed ? ` (idempotent-replayed: ${a.replayed})` : ''} ${a.text.slice(0, 300)}`;

/** A database of the engine under test, with the test data, removed when the test ends. */
async function preparedEnv(t: Test): Promise<{ url: string; env: Record<string, string> }> {
  const db = await serverDatabase('booking-idem-');
  t.teardown(db.cleanup);
  await prepareDatabase(db.url, testData());
  return {
    url: db.url,
    env: { DATABASE_URL: db.url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false', RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0' },
  };
}

/** Nodes started at the same moment on `env`, stopped when the test ends. */
async function nodes(t: Test, env: Record<string, string>, count: number): Promise<ServerProcess[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServer(env)));
  const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  t.teardown(() => Promise.all(up.map((node) => node.stop())));
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  return up;
}

t.test(`50 concurrent copies of one keyed CreateRebateCodeTransaction on two nodes run once (${engine})`, async (t) => {
  const { url, env } = await preparedEnv(t);
  const [one, two] = await nodes(t, env, 2);
  const key = `idem-race-${randomBytes(8).toString('hex')}`;
  const authorization = `Bearer ${await token(A)}`;
  const headers = { authorization, 'content-type': 'application/json', 'idempotency-key': key };
  const body = JSON.stringify({ RebateCodeId: CARD.id, Amount: 7, Usage: 0, ChangeType: 'Decrease' });
  const copy = (i: number) => send(`${(i % 2 === 0 ? one : two).url}${TRANSACTIONS}`, { method: 'POST', headers, body });

  const began = Date.now();
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => copy(i)));
  t.comment(`answers in ${Date.now() - began} ms: ${JSON.stringify(tally(answers))}`);

  t.equal(answers.filter((a) => a.status >= 500).length, 0, `no 5xx: ${answers.filter((a) => a.status >= 500).map(brief).join(' | ')}`);
  const odd = answers.filter((a) => a.status !== 200 && a.status !== 409);
  t.same(odd.map(brief), [], 'every answer is a 200 or a 409');
  const refused = answers.filter((a) => a.status === 409);
  t.same(
    refused.filter((a) => a.body?.ResponseStatus?.ErrorCode !== 'IdempotencyKeyInUse' || a.retryAfter !== '1').map((a) => `${brief(a)} retry-after: ${a.retryAfter}`),
    [],
    `every 409 (${refused.length}) is IdempotencyKeyInUse with Retry-After: 1`,
  );

  const served = answers.filter((a) => a.status === 200);
  const ran = served.filter((a) => a.replayed === null);
  t.equal(ran.length, 1, 'exactly one 200 comes from the run itself (no idempotent-replayed header)');
  const replays = served.filter((a) => a.replayed !== null);
  t.same(replays.filter((a) => a.replayed !== 'true').map(brief), [], 'every other 200 is a replay: idempotent-replayed: true');
  if (replays.length === 0) t.comment('no copy was replayed during the burst (all copies that did not run were refused 409)');
  const original = ran[0]?.body;
  t.ok(original?.RebateCodeTransactionItem?.Id, 'the run answered the transaction');
  t.same(served.filter((a) => !isDeepStrictEqual(a.body, original)).map(brief), [], 'every 200 carries the very body of the run');

  // A copy sent now, to each node, replays the stored answer.
  for (const i of [0, 1]) {
    const again = await copy(i);
    t.equal(again.status, 200, `a later copy to node ${i + 1} is answered 200`);
    t.equal(again.replayed, 'true', `a later copy to node ${i + 1} is replayed`);
    t.strictSame(again.body, original, `a later copy to node ${i + 1} replays the body of the run`);
  }

  const store = await openStore(url, { migrate: false });
  t.teardown(() => store.close());
  const keys = await store.db.selectFrom('idempotency_keys').select(['status', 'answer']).where('key', '=', key).execute();
  t.equal(keys.length, 1, 'the key is stored once');
  t.equal(keys[0]?.status, 200, 'with the status of the run');
  const stored = keys[0]?.answer ? JSON.parse(keys[0].answer) : undefined;
  t.same(stored, original, 'and the answer of the run');
  t.same(served.filter((a) => !isDeepStrictEqual(a.body, stored)).map(brief), [], 'every 200 equals the stored answer');

  const rows = await store.db.selectFrom('rebate_code_transactions').select(['id', 'amount']).where('rebate_code_id', '=', CARD.id).execute();
  t.same(rows.map((r) => ({ id: r.id, amount: Number(r.amount) })), [{ id: original?.RebateCodeTransactionItem?.Id, amount: -7 }], 'one transaction row: the run\'s');
  const card = await store.db.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', CARD.id).executeTakeFirstOrThrow();
  t.equal(Number(card.remaining_amount), 93, 'the card was spent once: 100 - 7');
  const read = await send(`${two.url}${lookup(CARD.sign)}`, { headers: { authorization } });
  t.equal(read.body?.RemainingAmount, 93, 'and the API says so');
  const events = await store.db
    .selectFrom('webhook_deliveries').select(['id', 'payload'])
    .where('company_id', '=', A).where('event_type', '=', 'rebatecode.transaction.created').execute();
  t.equal(events.length, 1, 'one webhook event recorded');
});

t.test(`keyed writes across a SIGKILL: each key takes effect once, acknowledged answers are replayed (${engine})`, async (t) => {
  const N = 240;
  const WORKERS = 12;
  const KILL_AFTER_ACKS = 80;
  const { url, env } = await preparedEnv(t);
  const server = await startServer(env);
  t.teardown(() => server.kill());
  const authorization = `Bearer ${await token(A)}`;
  const run = randomBytes(6).toString('hex');

  // Request n: even n creates a message template named for n, odd n adds n to the gift card
  // (so each transaction row says which request made it). Each has its own key.
  const isTemplate = (n: number) => n % 2 === 0;
  const name = (n: number) => `Idem crash ${run} ${n}`;
  const keyOf = (n: number) => `idem-crash-${run}-${n}`;
  const request = (base: string, n: number) =>
    send(`${base}${isTemplate(n) ? TEMPLATES : TRANSACTIONS}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', 'idempotency-key': keyOf(n) },
      body: JSON.stringify(
        isTemplate(n)
          ? { TypeId: 1, Name: name(n), Title: `Title ${n}`, Body: `Body of request ${n}` }
          : { RebateCodeId: GIFT.id, Amount: n, Usage: 0, ChangeType: 'Increase' },
      ),
    });

  const answered = new Map<number, Answer>();
  const inFlight = new Set<number>();
  const unexpected: string[] = [];
  let killed: Promise<void> | undefined;
  let next = 0;

  const workers = Array.from({ length: WORKERS }, async () => {
    while (!killed && next < N) {
      const n = next++;
      try {
        const answer = await request(server.url, n);
        if (answer.status !== 200) unexpected.push(`request ${n}: ${brief(answer)}`);
        answered.set(n, answer);
        if (!killed && answered.size >= KILL_AFTER_ACKS) killed = server.kill();
      } catch (err) {
        // Only the kill may break a connection; a write in flight then has no known outcome.
        if (!killed) unexpected.push(`request ${n}: ${String(err)}`);
        inFlight.add(n);
      }
    }
  });
  await Promise.all(workers);
  await killed;
  t.same(unexpected, [], 'every write answered before the kill was a 200');
  t.equal(server.child.signalCode, 'SIGKILL', 'the server was killed');
  t.ok(inFlight.size > 0, `${inFlight.size} writes were in flight at the kill; ${answered.size} answered; ${N - next} never sent`);
  t.ok([...answered.values()].every((a) => a.replayed === null), 'no first use was answered as a replay');

  if (engine === 'postgres') {
    // The killed process's sessions end as PostgreSQL notices its sockets closed: wait, so
    // that no lock of a rolled-back claim is left when the retries come.
    t.equal(await otherSessionsEnded(url), 0, 'no session of the killed process is left');
  }

  // The client retries everything, each request with its own key, on the restarted server.
  const again = await startServer(env);
  t.teardown(() => again.stop());
  const retried = new Map<number, Answer>();
  const retryProblems: string[] = [];
  let retryNext = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (retryNext < N) {
        const n = retryNext++;
        try {
          retried.set(n, await request(again.url, n));
        } catch (err) {
          retryProblems.push(`retry ${n}: ${String(err)}`);
        }
      }
    }),
  );
  t.same(retryProblems, [], 'every retry is answered');
  const retries = [...retried.values()];
  t.comment(`retries: ${JSON.stringify(tally(retries))}`);
  t.same(retries.filter((a) => a.status >= 500).map(brief), [], 'no 5xx');
  t.same(retries.filter((a) => a.status !== 200).map(brief), [], 'every retry is a 200');

  const replayProblems: string[] = [];
  let replayedInFlight = 0;
  for (let n = 0; n < N; n++) {
    const retry = retried.get(n);
    if (!retry || retry.status !== 200) continue;
    const first = answered.get(n);
    if (first) {
      // Acknowledged before the kill: the retry replays exactly that answer.
      if (retry.replayed !== 'true') replayProblems.push(`request ${n} was answered before the kill, its retry was not replayed: ${brief(retry)}`);
      if (!isDeepStrictEqual(retry.body, first.body)) replayProblems.push(`request ${n}: the retry's body ${retry.text} differs from the answer before the kill ${first.text}`);
    } else if (inFlight.has(n)) {
      // No answer: committed before the kill (a replay) or not (runs now); either is right.
      if (retry.replayed !== null && retry.replayed !== 'true') replayProblems.push(`request ${n}: idempotent-replayed: ${retry.replayed}`);
      if (retry.replayed === 'true') replayedInFlight++;
    } else if (retry.replayed !== null) {
      // Never sent before the kill: nothing can be stored for its key.
      replayProblems.push(`request ${n} was never sent before the kill, yet its first use was replayed: ${brief(retry)}`);
    }
  }
  t.same(replayProblems, [], 'acknowledged answers are replayed exactly; unsent requests run now');
  t.comment(`${replayedInFlight} of ${inFlight.size} writes in flight at the kill had committed (their retries replayed)`);

  const store = await openStore(url, { migrate: false });
  t.teardown(() => store.close());
  const templates = await store.db.selectFrom('message_templates').select(['id', 'name']).where('name', 'like', `Idem crash ${run} %`).execute();
  const transactions = await store.db.selectFrom('rebate_code_transactions').select(['id', 'amount']).where('rebate_code_id', '=', GIFT.id).execute();
  const effects: string[] = [];
  for (let n = 0; n < N; n++) {
    const made = isTemplate(n)
      ? templates.filter((row) => row.name === name(n)).map((row) => row.id)
      : transactions.filter((row) => Number(row.amount) === n).map((row) => row.id);
    if (made.length !== 1) {
      effects.push(`request ${n} took effect ${made.length} times`);
      continue;
    }
    const body = retried.get(n)?.body;
    const answeredId = isTemplate(n) ? body?.Id : body?.RebateCodeTransactionItem?.Id;
    if (answeredId !== made[0]) effects.push(`request ${n}: the retry answers Id ${answeredId}, the store holds ${made[0]}`);
  }
  t.same(effects, [], `each of the ${N} keys took effect exactly once, and its answer names that effect`);
  t.equal(templates.length, N / 2, 'no other template was made');
  t.equal(transactions.length, N / 2, 'no other transaction was made');
  const gift = await store.db.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', GIFT.id).executeTakeFirstOrThrow();
  const expected = Array.from({ length: N }, (_, n) => n).filter((n) => !isTemplate(n)).reduce((sum, n) => sum + n, 0);
  t.equal(Number(gift.remaining_amount), expected, 'the gift card holds each increase once');

  const keys = await store.db.selectFrom('idempotency_keys').select(['key', 'status']).where('company_id', '=', A).where('key', 'like', `idem-crash-${run}-%`).execute();
  t.equal(keys.length, N, 'every key is stored once');
  t.same(keys.filter((k) => k.status !== 200).map((k) => `${k.key}: ${k.status}`), [], 'each with the status 200 of its run');
  const events = await store.db
    .selectFrom('webhook_deliveries').select(['event_type', (eb) => eb.fn.countAll<number>().as('n')])
    .where('company_id', '=', A).groupBy('event_type').execute();
  const counted = Object.fromEntries(events.map((e) => [e.event_type, Number(e.n)]));
  t.same(counted, { 'messagetemplate.created': N / 2, 'rebatecode.transaction.created': N / 2 }, 'one webhook event per key');
});
