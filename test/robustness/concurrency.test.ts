import SQLite from 'better-sqlite3';
import pg from 'pg';
import t, { type Test } from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, token } from '../helper.js';
import { engine, freshDatabase, TEST_DATABASE_URL } from '../test-store.js';
import { prepareDatabase, startServer, tempDatabase } from './server-process.js';

// "Concurrent transactions never overspend" (CreateRebateCodeTransaction), on a real
// socket: 200 decreases of 1 race for 100 units; exactly 100 may win, and every other one
// is a 4xx refusal, never a 5xx. On PostgreSQL the race also runs with the database's
// default isolation level raised to REPEATABLE READ and to SERIALIZABLE, where concurrent
// updates of the code fail with serialization failures that the store must run again.

const VALUE_CODE = { id: 9001, sign: 'RACE-VALUE-100' };
const PUNCH_CODE = { id: 9002, sign: 'RACE-PUNCH-100' };
const RACERS = 200;
const PURCHASES = 10;

const period = { ValidFrom: new Date(Date.now() - 86400000).toISOString(), ValidTo: '2099-12-31T23:59:59.000Z' };
const demo = buildDemoData();
const data = {
  ...demo,
  RebateCodes: [
    ...demo.RebateCodes,
    { CompanyId: DEMO_COMPANY_A, Id: VALUE_CODE.id, RebateCodeSign: VALUE_CODE.sign, Name: 'Race value card', RebateCodeTypeId: 4, RebateCodeValue: 100, RemainingAmount: 100, RebateCodeStatusId: 1, ...period },
    { CompanyId: DEMO_COMPANY_A, Id: PUNCH_CODE.id, RebateCodeSign: PUNCH_CODE.sign, Name: 'Race punch ticket', RebateCodeTypeId: 3, RebateCodeValue: 100, RemainingUsage: 100, RebateCodeStatusId: 1, ...period },
  ],
};

/** An answer of CreateRebateCodeTransaction: its item, or a refusal. */
interface Answer {
  RebateCodeTransactionItem: { Id: number };
  ResponseStatus?: { ErrorCode?: string };
}

type Isolation = 'read committed' | 'repeatable read' | 'serializable';

/** Reads the database behind the server's back, whatever the engine. */
interface Reader {
  all(text: string, id: number): Promise<Array<Record<string, number>>>;
}

/**
 * A fresh database of the engine under test loaded with `data`, and a reader of it. On
 * PostgreSQL `isolation` becomes the database's default_transaction_isolation before any
 * server connects, so every transaction the server runs (and every lone statement) runs at it.
 */
async function raceDatabase(t: Test, isolation: Isolation): Promise<{ url: string; reader: Reader }> {
  if (engine === 'sqlite') {
    const db = tempDatabase();
    t.teardown(db.cleanup);
    await prepareDatabase(db.url, data);
    const sqlite = new SQLite(db.path, { readonly: true });
    t.teardown(() => sqlite.close());
    return { url: db.url, reader: { all: async (text, id) => sqlite.prepare(text).all(id) as Array<Record<string, number>> } };
  }
  const database = await freshDatabase();
  t.teardown(database.drop);
  await prepareDatabase(database.url, data);
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`alter database ${name} set default_transaction_isolation to '${isolation}'`);
  await admin.end();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  t.equal((await client.query('show transaction_isolation')).rows[0].transaction_isolation, isolation, `the database runs at ${isolation}`);
  // node-postgres reads integer and double precision columns as numbers, as better-sqlite3 does.
  const all = async (text: string, id: number) => (await client.query<Record<string, number>>(text.replace('?', '$1'), [id])).rows;
  return { url: database.url, reader: { all } };
}

const isolations: Isolation[] = engine === 'postgres' ? ['read committed', 'repeatable read', 'serializable'] : ['read committed'];

for (const isolation of isolations) {
  t.test(`concurrent decreases on a real socket (${engine}${engine === 'postgres' ? `, ${isolation}` : ''})`, async (t) => {
    const { url, reader } = await raceDatabase(t, isolation);
    const server = await startServer({
      DATABASE_URL: url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false',
      RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0',
    });
    t.teardown(() => server.stop());
    const authorization = `Bearer ${await token(DEMO_COMPANY_A)}`;

    /** Fires all decreases at once and sorts the answers by status. */
    async function race(body: Record<string, unknown>) {
      const answers = await Promise.all(
        Array.from({ length: RACERS }, () =>
          fetch(`${server.url}/rebatecodes/transactions`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify({ ...body, ChangeType: 'Decrease' }),
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as Answer })),
        ),
      );
      return { ok: answers.filter((a) => a.status === 200), refused: answers.filter((a) => a.status !== 200) };
    }

    const checkRefusals = (t: Test, refused: Awaited<ReturnType<typeof race>>['refused']) => {
      t.equal(refused.filter((a) => a.status >= 500).length, 0, 'no 5xx');
      t.equal(refused.length, RACERS - 100, 'the other 100 are refused');
      t.ok(refused.every((a) => a.status >= 400 && a.status < 500), 'every refusal is a 4xx');
      t.ok(refused.every((a) => typeof a.body.ResponseStatus?.ErrorCode === 'string'), 'every refusal is a ResponseStatus');
      t.same([...new Set(refused.map((a) => a.body.ResponseStatus?.ErrorCode))], ['InsufficientBalance']);
    };
    const transactionsOf = (id: number) => reader.all('select amount, usage from rebate_code_transactions where rebate_code_id = ?', id);
    const codeRow = async (id: number) =>
      (await reader.all('select remaining_amount, remaining_usage, number_of_uses_used from rebate_codes where id = ?', id))[0];

    t.test('a value card with 100 remaining: 200 decreases of Amount 1', async (t) => {
      const { ok, refused } = await race({ RebateCodeId: VALUE_CODE.id, Amount: 1, Usage: 0 });
      t.equal(ok.length, 100, 'exactly 100 succeed');
      t.equal(new Set(ok.map((a) => a.body.RebateCodeTransactionItem.Id)).size, 100, '100 distinct transactions answered');
      checkRefusals(t, refused);
      t.match(await codeRow(VALUE_CODE.id), { remaining_amount: 0, number_of_uses_used: 100 }, 'nothing overspent');
      const recorded = await transactionsOf(VALUE_CODE.id);
      t.equal(recorded.length, 100, 'exactly 100 transactions recorded');
      t.ok(recorded.every((r) => r.amount === -1 && r.usage === 0));
      // The API agrees: the code is used up now.
      const lookup = await fetch(
        `${server.url}/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${VALUE_CODE.sign}&ServiceId=101&IncludeConnectedServices=false`,
        { headers: { authorization } },
      );
      t.equal(lookup.status, 400);
      t.equal(((await lookup.json()) as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode, 'RebateCodeUsedUp');
    });

    t.test('a punch ticket with 100 uses remaining: 200 decreases of Usage 1', async (t) => {
      const { ok, refused } = await race({ RebateCodeId: PUNCH_CODE.id, Amount: 0, Usage: 1 });
      t.equal(ok.length, 100, 'exactly 100 succeed');
      checkRefusals(t, refused);
      t.match(await codeRow(PUNCH_CODE.id), { remaining_usage: 0, number_of_uses_used: 100 }, 'nothing overspent');
      const recorded = await transactionsOf(PUNCH_CODE.id);
      t.equal(recorded.length, 100, 'exactly 100 transactions recorded');
      t.ok(recorded.every((r) => r.amount === 0 && r.usage === -1));
    });

    t.test('purchases by one new e-mail at once: every one succeeds, one profile is made', async (t) => {
      const purchases = await Promise.all(
        Array.from({ length: PURCHASES }, (_, i) =>
          fetch(`${server.url}/rebatecodes/fromarticle`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            // the e-mail in other cases too: profiles match it regardless of case
            body: JSON.stringify({ ArticleId: 103, Customer: { Firstname: 'Race', Email: i % 2 ? 'RACE.BUYER@example.com' : 'race.buyer@example.com' } }),
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as { Customers?: Array<{ Id: string }> } })),
        ),
      );
      t.same(purchases.map((p) => p.status), purchases.map(() => 200), 'no purchase fails');
      const profiles = await reader.all("select count(*) as n from customers where lower(email) = 'race.buyer@example.com' and 1 = ?", 1);
      t.equal(Number(profiles[0].n), 1, 'one profile for the e-mail');
      t.equal(new Set(purchases.map((p) => p.body.Customers?.[0]?.Id)).size, 1, 'every code is connected to it');
    });
  });
}
