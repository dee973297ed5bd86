import { statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import t from 'tap';
import { openStore } from '../../src/store/db.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, token } from '../helper.js';
import { engine } from '../test-store.js';
import { otherSessionsEnded, prepareDatabase, serverDatabase, startServer } from './server-process.js';

// Acknowledged writes survive a crash: writes stream in with bounded concurrency, the
// server is SIGKILLed in the middle, and every write that was answered 200 must be in the
// store afterwards, the store consistent, and the server able to start on it again.
// SQLite: the file is recovered from its write-ahead log when it is opened again, and is
// checked with SQLite's own integrity and foreign-key checks. PostgreSQL: the server keeps
// running; what is under test is that the killed process's open transactions are rolled
// back (its connections end), and nothing it acknowledged is lost or half-written.

const CODE = { id: 9101, sign: 'CRASH-GIFT' };
const WORKERS = 16;
const KILL_AFTER_ACKS = 400;

const demo = buildDemoData();
const data = {
  ...demo,
  RebateCodes: [
    ...demo.RebateCodes,
    {
      CompanyId: DEMO_COMPANY_A, Id: CODE.id, RebateCodeSign: CODE.sign, Name: 'Crash gift card', RebateCodeTypeId: 5,
      RebateCodeValue: 1000, RemainingAmount: 0, RebateCodeStatusId: 1,
      ValidFrom: new Date(Date.now() - 86400000).toISOString(), ValidTo: '2099-12-31T23:59:59.000Z',
    },
  ],
};

t.test('every acknowledged write survives SIGKILL mid-load', async (t) => {
  const db = await serverDatabase();
  t.teardown(db.cleanup);
  await prepareDatabase(db.url, data);
  const env = { DATABASE_URL: db.url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false', RATE_LIMIT_MAX: '0' };
  const server = await startServer(env);
  t.teardown(() => server.kill());
  const headers = { authorization: `Bearer ${await token(DEMO_COMPANY_A)}`, 'content-type': 'application/json' };

  const ackedTypes = new Map<number, string>();
  const ackedTransactions = new Set<number>();
  const unexpected: string[] = [];
  let killed: Promise<void> | undefined;
  let sent = 0;
  let failedAfterKill = 0;

  /** One write; its Id is recorded only once the whole 200 answer has been read. */
  async function write(n: number) {
    const createType = n % 2 === 0;
    const name = `Crash type ${n}`;
    const res = await fetch(`${server.url}${createType ? '/resourcetypes' : '/rebatecodes/transactions'}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        createType
          ? { Name: name, Active: true, Resources: [{ Id: 101, Priority: 1 }] }
          : { RebateCodeId: CODE.id, Amount: 1, Usage: 0, ChangeType: 'Increase' },
      ),
    });
    const body = (await res.json()) as any;
    if (res.status !== 200) return void unexpected.push(`${res.status} ${JSON.stringify(body)}`);
    if (createType) ackedTypes.set(body.Id, name);
    else ackedTransactions.add(body.RebateCodeTransactionItem.Id);
    if (!killed && ackedTypes.size + ackedTransactions.size >= KILL_AFTER_ACKS) killed = server.kill();
  }

  const workers = Array.from({ length: WORKERS }, async () => {
    for (;;) {
      try {
        await write(sent++);
      } catch (err) {
        // Only the kill may break a connection; a write in flight then has no known outcome.
        if (!killed) unexpected.push(String(err));
        else failedAfterKill++;
        return;
      }
    }
  });
  await Promise.all(workers);
  await killed;
  t.same(unexpected, [], 'no write failed before the kill');
  t.ok(ackedTypes.size + ackedTransactions.size >= KILL_AFTER_ACKS, `acknowledged: ${ackedTypes.size} types, ${ackedTransactions.size} transactions`);
  t.ok(failedAfterKill > 0, `${failedAfterKill} writes were in flight at the kill`);
  t.equal(server.child.signalCode, 'SIGKILL');

  if (db.path) {
    const path = db.path;
    t.test('SQLite: the file is intact after recovering its write-ahead log', async (t) => {
      // The acknowledged writes sit in the write-ahead log, not yet in the main file: opening
      // it runs SQLite's recovery, which is what is under test.
      t.ok(statSync(`${path}-wal`).size > 0, 'the WAL holds the last writes at the kill');
      const file = new SQLite(path);
      t.teardown(() => file.close());
      t.equal(file.pragma('integrity_check', { simple: true }), 'ok', 'PRAGMA integrity_check');
      t.equal((file.pragma('foreign_key_check') as unknown[]).length, 0, 'PRAGMA foreign_key_check');
    });
  } else {
    t.test('PostgreSQL: the killed process\'s transactions were rolled back and its sessions ended', async (t) => {
      const others = await otherSessionsEnded(db.url);
      t.equal(others, 0, 'no session of the killed process is left (none holds a lock or an open transaction)');
    });
  }

  t.test(`the store holds every acknowledged write, consistently (${engine})`, async (t) => {
    const store = await openStore(db.url, { migrate: false });
    t.teardown(() => store.close());
    const { db: kysely } = store;
    const stored = await kysely.selectFrom('resource_types').select(['id', 'name']).where('name', 'like', 'Crash type %').execute();
    const types = new Map(stored.map((r) => [r.id, r.name]));
    const missingTypes = [...ackedTypes].filter(([id, name]) => types.get(id) !== name);
    t.same(missingTypes, [], `all ${ackedTypes.size} acknowledged resource types are there`);
    const members = await kysely.selectFrom('resource_type_resources').select('resource_type_id').where('resource_type_id', 'in', [0, ...types.keys()]).execute();
    t.equal(members.length, types.size, 'each stored type has its resource (no half-written type)');
    const { rows: orphans } = await sql<{ n: number }>`
      select (select count(*) from resource_type_resources l where not exists (select 1 from resource_types x where x.id = l.resource_type_id))
           + (select count(*) from rebate_code_transactions x where not exists (select 1 from rebate_codes c where c.id = x.rebate_code_id)) as n`.execute(kysely);
    t.equal(Number(orphans[0].n), 0, 'no link or transaction row without its parent');
    const transactions = new Set((await kysely.selectFrom('rebate_code_transactions').select('id').where('rebate_code_id', '=', CODE.id).execute()).map((r) => r.id));
    t.same([...ackedTransactions].filter((id) => !transactions.has(id)), [], `all ${ackedTransactions.size} acknowledged transactions are there`);
    const code = await kysely.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', CODE.id).executeTakeFirstOrThrow();
    t.equal(code.remaining_amount, transactions.size, 'the balance matches the stored transactions (each +1): nothing half-applied');
  });

  t.test('the server starts again on the same store and serves the acknowledged writes', async (t) => {
    const again = await startServer(env);
    t.teardown(() => again.stop());
    const res = await fetch(
      `${again.url}/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${CODE.sign}&ServiceId=101&IncludeConnectedServices=false`,
      { headers },
    );
    t.equal(res.status, 200);
    const code = (await res.json()) as { RemainingAmount: number; Transactions: { Id: number }[] };
    const served = new Set(code.Transactions.map((tx) => tx.Id));
    t.ok([...ackedTransactions].every((id) => served.has(id)), 'every acknowledged transaction is served');
    t.ok(code.RemainingAmount >= ackedTransactions.size);
    const more = await fetch(`${again.url}/resourcetypes`, { method: 'POST', headers, body: JSON.stringify({ Name: 'After the crash' }) });
    t.equal(more.status, 200, 'and takes writes');
  });
});
