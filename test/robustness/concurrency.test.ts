import SQLite from 'better-sqlite3';
import t, { type Test } from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, token } from '../helper.js';
import { prepareDatabase, startServer, tempDatabase } from './server-process.js';

// "Concurrent transactions never overspend" (CreateRebateCodeTransaction), on a real
// socket: 200 decreases of 1 race for 100 units; exactly 100 may win.

const VALUE_CODE = { id: 9001, sign: 'RACE-VALUE-100' };
const PUNCH_CODE = { id: 9002, sign: 'RACE-PUNCH-100' };
const RACERS = 200;

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

t.test('concurrent decreases on a real socket', async (t) => {
  const db = tempDatabase();
  t.teardown(db.cleanup);
  await prepareDatabase(db.url, data);
  const server = await startServer({
    DATABASE_URL: db.url, AUTH_JWT_SECRET: TEST_SECRET, DEMO_DATA: 'false',
    RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0',
  });
  t.teardown(() => server.stop());
  const authorization = `Bearer ${await token(DEMO_COMPANY_A)}`;
  const reader = new SQLite(db.path, { readonly: true });
  t.teardown(() => reader.close());

  /** Fires all decreases at once and sorts the answers by status. */
  async function race(body: Record<string, unknown>) {
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () =>
        fetch(`${server.url}/rebatecodes/transactions`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ ...body, ChangeType: 'Decrease' }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> })),
      ),
    );
    return { ok: answers.filter((a) => a.status === 200), refused: answers.filter((a) => a.status !== 200) };
  }

  const checkRefusals = (t: Test, refused: Awaited<ReturnType<typeof race>>['refused']) => {
    t.equal(refused.length, RACERS - 100, 'the other 100 are refused');
    t.ok(refused.every((a) => a.status >= 400 && a.status < 500), 'every refusal is a 4xx');
    t.ok(refused.every((a) => typeof a.body.ResponseStatus?.ErrorCode === 'string'), 'every refusal is a ResponseStatus');
    t.same([...new Set(refused.map((a) => a.body.ResponseStatus.ErrorCode))], ['InsufficientBalance']);
  };
  const transactionsOf = (id: number) =>
    reader.prepare('select amount, usage from rebate_code_transactions where rebate_code_id = ?').all(id) as { amount: number; usage: number }[];
  const codeRow = (id: number) =>
    reader.prepare('select remaining_amount, remaining_usage, number_of_uses_used from rebate_codes where id = ?').get(id) as Record<string, number>;

  t.test('a value card with 100 remaining: 200 decreases of Amount 1', async (t) => {
    const { ok, refused } = await race({ RebateCodeId: VALUE_CODE.id, Amount: 1, Usage: 0 });
    t.equal(ok.length, 100, 'exactly 100 succeed');
    t.equal(new Set(ok.map((a) => a.body.RebateCodeTransactionItem.Id)).size, 100, '100 distinct transactions answered');
    checkRefusals(t, refused);
    t.match(codeRow(VALUE_CODE.id), { remaining_amount: 0, number_of_uses_used: 100 });
    const recorded = transactionsOf(VALUE_CODE.id);
    t.equal(recorded.length, 100, 'exactly 100 transactions recorded');
    t.ok(recorded.every((r) => r.amount === -1 && r.usage === 0));
    // The API agrees: the code is used up now.
    const lookup = await fetch(
      `${server.url}/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${VALUE_CODE.sign}&ServiceId=101&IncludeConnectedServices=false`,
      { headers: { authorization } },
    );
    t.equal(lookup.status, 400);
    t.equal(((await lookup.json()) as any).ResponseStatus.ErrorCode, 'RebateCodeUsedUp');
  });

  t.test('a punch ticket with 100 uses remaining: 200 decreases of Usage 1', async (t) => {
    const { ok, refused } = await race({ RebateCodeId: PUNCH_CODE.id, Amount: 0, Usage: 1 });
    t.equal(ok.length, 100, 'exactly 100 succeed');
    checkRefusals(t, refused);
    t.match(codeRow(PUNCH_CODE.id), { remaining_usage: 0, number_of_uses_used: 100 });
    const recorded = transactionsOf(PUNCH_CODE.id);
    t.equal(recorded.length, 100, 'exactly 100 transactions recorded');
    t.ok(recorded.every((r) => r.amount === 0 && r.usage === -1));
  });
});
