import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { openStore } from '../../src/store/db.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { importData } from '../../src/import/import.js';
import { TEST_SECRET, token } from '../helper.js';
import { engine, freshDatabase } from '../test-store.js';
import { startServer, tempDatabase, type ServerProcess } from './server-process.js';

// Several nodes (docs/decisions.md, "Engines"): two server processes on one database, each
// request sent to one or the other as a load balancer would. With TEST_DATABASE_URL they share
// a fresh PostgreSQL database, the deployment that section is about; without it, one SQLite
// file (WAL), on which the same scenarios hold for processes on one machine. With
// TEST_REDIS_URL the nodes count rate limits together in Redis; without it, each counts
// alone, as documented (docs/postgresql.md).

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
const RACE_CARD = { id: 9101, sign: 'NODES-VALUE-100' };
const demo = buildDemoData();
const lookup = (sign: string, serviceId = 101) =>
  `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${sign}&ServiceId=${serviceId}&IncludeConnectedServices=false`;

interface Answer {
  status: number;
  body: Record<string, any>;
}

/** A request to one node, as the node at `i` of `nodes` (requests alternate between nodes). */
async function send(nodes: ServerProcess[], i: number, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${nodes[i % nodes.length].url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/** Answers by status, e.g. { 200: 100, 400: 100 }. */
const statuses = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((count, a) => ({ ...count, [a.status]: (count[a.status] ?? 0) + 1 }), {});

/**
 * A database no node has touched yet: not even migrated. On PostgreSQL a fresh test database
 * (a migrated copy) with its schema emptied; on SQLite a file that does not exist yet.
 */
async function emptyDatabase(t: Test): Promise<string> {
  if (engine === 'sqlite') {
    const db = tempDatabase('booking-nodes-');
    t.teardown(db.cleanup);
    return db.url;
  }
  const database = await freshDatabase();
  const store = await openStore(database.url, { migrate: false });
  await sql`drop schema public cascade`.execute(store.db);
  await sql`create schema public`.execute(store.db);
  await store.close();
  t.teardown(database.drop);
  return database.url;
}

/** Two nodes started at the same moment on `url`, stopped when the test ends. */
async function twoNodes(t: Test, env: Record<string, string>): Promise<ServerProcess[]> {
  const started = await Promise.allSettled([startServer(env), startServer(env)]);
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  return nodes;
}

t.test(`two nodes on one ${engine} database`, async (t) => {
  const databaseUrl = await emptyDatabase(t);
  const env = { DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: TEST_SECRET, RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0' };
  const authorization = `Bearer ${await token(DEMO_COMPANY_A)}`;
  const json = { authorization, 'content-type': 'application/json' };

  const nodes = await twoNodes(t, env);

  t.test('starting together on an empty database: both come up, the demo data is loaded once', async (t) => {
    const loaded = nodes.filter((node) => /loaded the demo data set/.test(node.logs()));
    t.equal(loaded.length, 1, 'one node loaded the demo data, the other found it there');
    const store = await openStore(databaseUrl);
    t.teardown(() => store.close());
    const count = async (table: 'companies' | 'rebate_codes') =>
      Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db)).rows[0].n);
    t.equal(await count('companies'), demo.Companies.length, 'the demo companies once');
    t.equal(await count('rebate_codes'), demo.RebateCodes.length, 'the demo rebate codes once');
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(store.db);
    t.equal(new Set(rows.map((row) => row.name)).size, rows.length, 'each migration recorded once');
    for (const node of nodes) t.equal((await fetch(`${node.url}/health`)).status, 200, 'both nodes answer');
  });

  t.test('a write on one node is read on the other', async (t) => {
    const store = await openStore(databaseUrl);
    await importData(store, {
      RebateCodes: [
        {
          CompanyId: DEMO_COMPANY_A, Id: RACE_CARD.id, RebateCodeSign: RACE_CARD.sign, Name: 'Two-node value card',
          RebateCodeTypeId: 4, RebateCodeValue: 100, RemainingAmount: 100, RebateCodeStatusId: 1,
          ValidFrom: new Date(Date.now() - 86400000).toISOString(), ValidTo: '2099-12-31T23:59:59.000Z',
        },
      ],
    });
    await store.close();
    const change = (i: number, ChangeType: string, Amount: number) =>
      send(nodes, i, '/rebatecodes/transactions', {
        method: 'POST', headers: json, body: JSON.stringify({ RebateCodeId: RACE_CARD.id, Amount, Usage: 0, ChangeType }),
      });
    const remaining = async (i: number) => {
      const read = await send(nodes, i, lookup(RACE_CARD.sign), { headers: { authorization } });
      t.equal(read.status, 200, `node ${(i % 2) + 1} finds the card`);
      return read.body.RemainingAmount;
    };
    t.equal((await change(0, 'Decrease', 1)).status, 200, 'node 1 takes 1');
    t.equal(await remaining(1), 99, 'node 2 reads the 99 that node 1 left');
    t.equal((await change(1, 'Increase', 1)).status, 200, 'node 2 gives it back');
    t.equal(await remaining(0), 100, 'node 1 reads the 100 that node 2 left');
  });

  t.test('200 concurrent decreases of 1 on a card with 100 left, split across both nodes', async (t) => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        send(nodes, i, '/rebatecodes/transactions', {
          method: 'POST', headers: json, body: JSON.stringify({ RebateCodeId: RACE_CARD.id, Amount: 1, Usage: 0, ChangeType: 'Decrease' }),
        }),
      ),
    );
    const store = await openStore(databaseUrl);
    t.teardown(() => store.close());
    const row = await store.db.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', RACE_CARD.id).executeTakeFirstOrThrow();
    const won = answers.filter((a) => a.status === 200).length;
    const recorded = await store.db
      .selectFrom('rebate_code_transactions').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rebate_code_id', '=', RACE_CARD.id).where('amount', '=', -1).executeTakeFirstOrThrow();
    t.equal(Number(recorded.n), won + 1, 'one transaction recorded per success (and the earlier one)');
    t.equal(Number(row.remaining_amount), 100 - won, 'the card lost exactly what was acknowledged');
    t.equal(answers.filter((a) => a.status >= 500).length, 0, `no 5xx: ${JSON.stringify(statuses(answers))}`);
    const refusals = answers.filter((a) => a.status !== 200);
    t.same([...new Set(refusals.map((a) => a.body.ResponseStatus?.ErrorCode))], ['InsufficientBalance'], 'every refusal is InsufficientBalance');
    t.equal(won, 100, 'exactly 100 succeed');
    t.equal(refusals.length, 100, 'exactly 100 are refused');
    t.equal(Number(row.remaining_amount), 0, 'RemainingAmount ends at 0');
    const usedUp = await send(nodes, 1, lookup(RACE_CARD.sign), { headers: { authorization } });
    t.equal(usedUp.body.ResponseStatus?.ErrorCode, 'RebateCodeUsedUp', 'either node sees the card used up');
  });

  t.test(TEST_REDIS_URL ? 'REDIS_URL: the nodes count rate limits together' : 'no REDIS_URL: each node counts rate limits alone', async (t) => {
    const max = 6;
    const lookups = 3;
    const limited = await twoNodes(t, {
      ...env,
      RATE_LIMIT_MAX: String(max),
      REBATE_LOOKUP_RATE_LIMIT_MAX: String(lookups),
      // A prefix of this run's own, so that other tests (and runs) on the same Redis count apart.
      ...(TEST_REDIS_URL ? { REDIS_URL: redisUrlWithPrefix(TEST_REDIS_URL) } : {}),
    });
    // max + k requests, alternating between the nodes (k = max + 2, so that each node alone
    // also sees more than max): counted together, exactly k are refused; counted alone, each
    // node allows max and refuses only its own requests beyond that.
    const allowed = (limit: number) => (TEST_REDIS_URL ? limit : limit * limited.length);
    const requests = 2 * max + 2;
    const answers = await Promise.all(Array.from({ length: requests }, (_, i) => send(limited, i, '/categories?Take=1')));
    t.equal(answers.filter((a) => a.status === 429).length, requests - allowed(max), `429s: ${JSON.stringify(statuses(answers))}`);
    t.ok(answers.every((a) => a.status === 200 || a.body.ResponseStatus?.ErrorCode === 'TooManyRequests'), 'the others are served');

    // GetRebateCodeBySign's stricter per-caller limit (its route's limit replaces the global one).
    const checkCount = 2 * lookups + 2;
    const checks = await Promise.all(
      Array.from({ length: checkCount }, (_, i) => send(limited, i, lookup('MASSAGE100', 102), { headers: { authorization } })),
    );
    t.equal(checks.filter((a) => a.status === 429).length, checkCount - allowed(lookups), `lookups: ${JSON.stringify(statuses(checks))}`);
    t.ok(checks.every((a) => a.status === 200 || a.status === 429), 'the others are answered');
  });
});

/** `url` with an ioredis keyPrefix of its own (REDIS_URL accepts ioredis options as query parameters). */
function redisUrlWithPrefix(url: string): string {
  const withPrefix = new URL(url);
  withPrefix.searchParams.set('keyPrefix', `booking-test-${randomBytes(6).toString('hex')}:`);
  return withPrefix.toString();
}
