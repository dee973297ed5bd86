import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { ANNA, rebateData } from '../fixtures/rebate-codes.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, badRequest, buildTestApp, expectRefusal, expectRefused, snapshot, token, type Refusal, type TestApp } from '../helper.js';

// CreateRebateCodeTransaction: POST /rebatecodes/transactions

const TRANSACTIONS = '/rebatecodes/transactions';
const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData });
const change = (RebateCodeId: number, ChangeType: 'Increase' | 'Decrease', Amount: number, Usage = 0, rest: object = {}) =>
  ({ RebateCodeId, ChangeType, Amount, Usage, ...rest });
/** A 400 listing one error, `code` on `field`, with this message. */
const invalid = (code: string, field: string, message: string | RegExp): Refusal => ({ ...badRequest([code, field]), message, name: code });
const codeRow = (api: TestApp, id: number) =>
  api.store.db.selectFrom('rebate_codes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const transactionsOf = (api: TestApp, id: number) =>
  api.store.db.selectFrom('rebate_code_transactions').selectAll().where('rebate_code_id', '=', id).orderBy('id').execute();

t.test('a Decrease of Amount takes value from the card, counts a use and answers the signed transaction', async (t) => {
  const api = await setup(t);
  const cashier = await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'cashier-1' });
  const res = await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 120.55), as: cashier });
  t.equal(res.statusCode, 200);
  const item = res.json().RebateCodeTransactionItem;
  t.same(item, {
    Id: item.Id, CompanyId: COMPANY_A, RebateCodeId: 1000, RebateCodeSign: 'GIFT-AAAA', RebateCodeTypeId: 5, RebateCodeTypeName: 'GiftCard',
    Amount: -120.55, Usage: '0', UpdatedDate: item.CreatedDate, CreatedDate: item.CreatedDate, PriceSign: 'kr',
  });
  t.ok(Math.abs(Date.parse(item.CreatedDate) - Date.now()) < 5000, 'created now');
  t.match(await codeRow(api, 1000), { remaining_amount: 379.45, number_of_uses_used: 1, updated_by: 'cashier-1', updated: item.CreatedDate });
  t.match(await transactionsOf(api, 1000), [{ id: item.Id, amount: -120.55, usage: 0, booking_id: null }]);
});

t.test('an Increase of Usage adds uses to a punch ticket and does not count a use', async (t) => {
  const api = await setup(t);
  const item = (await api.call('POST', TRANSACTIONS, { body: change(1007, 'Increase', 0, 5) })).json().RebateCodeTransactionItem;
  t.match(item, { Amount: 0, Usage: '5', RebateCodeTypeName: 'PunchTicket' });
  t.match(await codeRow(api, 1007), { remaining_usage: 25, number_of_uses_used: 0 });
  const decrease = (await api.call('POST', TRANSACTIONS, { body: change(1007, 'Decrease', 0, 2) })).json().RebateCodeTransactionItem;
  t.equal(decrease.Usage, '-2');
  t.match(await codeRow(api, 1007), { remaining_usage: 23, number_of_uses_used: 1 });
});

t.test('a BookingId links the transaction to the booking, its service and customer', async (t) => {
  const api = await setup(t);
  const item = (await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 50, 0, { BookingId: 500 }) })).json().RebateCodeTransactionItem;
  t.match(item, {
    BookingId: 500,
    Service: { Id: 100, Name: 'Haircut', Active: true },
    Customer: { Id: ANNA, Firstname: 'Anna', Email: 'Anna.Berg@example.com' },
  });
  const unchanged = await snapshot(api.store);
  for (const bookingId of [600, 9999]) {
    const res = await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 50, 0, { BookingId: bookingId }) });
    t.equal(res.statusCode, 400, `booking ${bookingId}`);
    t.same(res.json().ResponseStatus.Errors, [{ ErrorCode: 'InvalidBookingId', FieldName: 'BookingId', Message: "'Booking Id' must be a booking of the company." }]);
  }
  await unchanged.assert(t, 'a refused request changes nothing');
});

t.test('money is rounded to 2 decimals: 0.1 then 0.2 empties a code holding 0.3', async (t) => {
  const api = await setup(t);
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1011, 'Decrease', 0.1) })).statusCode, 200);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0.2);
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1011, 'Decrease', 0.2) })).statusCode, 200);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0);
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1011, 'Increase', 0.1 + 0.2) })).json().RebateCodeTransactionItem.Amount, 0.3);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0.3);
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1000, 'Increase', 0.1 + 0.2) })).statusCode, 200);
  t.equal((await codeRow(api, 1000)).remaining_amount, 500.3, 'added to a balance with no binary noise');
});

t.test('at least one of Amount and Usage must be greater than 0', async (t) => {
  const api = await setup(t);
  const message = "'Amount' or 'Usage' must be greater than 0.";
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1000, 'Decrease', 0, 0) }, invalid('GreaterThan', 'Amount', message));
});

t.test('Amount needs a code with RemainingAmount, Usage one with RemainingUsage', async (t) => {
  const api = await setup(t);
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1007, 'Decrease', 5, 1) }, invalid('AmountNotApplicable', 'Amount', /carries no value/));
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1000, 'Increase', 0, 1) }, invalid('UsageNotApplicable', 'Usage', /carries no uses/));
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1004, 'Decrease', 1) }, invalid('AmountNotApplicable', 'Amount', /MAXUSES/));
});

t.test('a Decrease beyond what remains is 400 InsufficientBalance and changes nothing', async (t) => {
  const api = await setup(t);
  const message = "Rebate code 'GIFT-AAAA' has 500 remaining; cannot decrease by 500.01.";
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1000, 'Decrease', 500.01) }, invalid('InsufficientBalance', 'Amount', message));
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1007, 'Decrease', 0, 21) }, invalid('InsufficientBalance', 'Usage', /has 20 uses remaining/));
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 500) })).statusCode, 200, 'exactly all is fine');
  t.equal((await codeRow(api, 1000)).remaining_amount, 0);
});

t.test('an inactive, expired or used-up code refuses a Decrease; an Increase is still allowed', async (t) => {
  const api = await setup(t);
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1009, 'Decrease', 1) }, invalid('RebateCodeInactive', 'RebateCodeSign', /its status is Expired/));
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1010, 'Decrease', 1) }, invalid('RebateCodeExpired', 'Date', /expired at 2021-01-01/));
  await expectRefused(t, api, 'POST', TRANSACTIONS, { body: change(1012, 'Decrease', 1) }, invalid('RebateCodeUsedUp', 'RebateCodeId', /its 1 uses are used/));
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1009, 'Increase', 10) })).statusCode, 200);
  t.equal((await codeRow(api, 1009)).remaining_amount, 60);
});

t.test('invalid bodies are validation failures', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  for (const body of [change(1000, 'Decrease', -1), { ...change(1000, 'Decrease', 1), ChangeType: 'Refund' }, { RebateCodeId: 1000 }]) {
    const status = expectRefusal(t, await api.call('POST', TRANSACTIONS, { body }), { status: 400 });
    t.ok(status.Errors.length > 0);
  }
  await unchanged.assert(t);
});

/**
 * 50 requests through Promise.all of injects, made to overlap: a transaction holds the
 * store's connection until every request has reached the store, so all 50 read the code
 * while 20 remain, and only the conditional UPDATE can keep them from overspending.
 */
async function allAtOnce(api: TestApp, request: () => Promise<LightMyRequestResponse>) {
  await api.app.ready();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const holding = api.store.db.transaction().execute(() => gate);
  const answers = Promise.all(Array.from({ length: 50 }, request));
  await new Promise((resolve) => setTimeout(resolve, 300));
  open();
  await holding;
  return answers;
}

t.test('50 concurrent Decreases of 1 Amount on 20 remaining: exactly 20 succeed', async (t) => {
  const api = await setup(t);
  const jwt = await token(COMPANY_A);
  const answers = await allAtOnce(api, () => api.call('POST', TRANSACTIONS, { body: change(1008, 'Decrease', 1), as: jwt }));
  t.equal(answers.filter((r) => r.statusCode === 200).length, 20);
  const refusals = answers.filter((r) => r.statusCode !== 200);
  t.equal(refusals.length, 30);
  t.ok(refusals.every((r) => r.statusCode === 400 && r.json().ResponseStatus.ErrorCode === 'InsufficientBalance'));
  t.match(await codeRow(api, 1008), { remaining_amount: 0, number_of_uses_used: 20 });
  t.equal((await transactionsOf(api, 1008)).length, 20);
});

t.test('50 concurrent Decreases of 1 Usage on 20 remaining: exactly 20 succeed', async (t) => {
  const api = await setup(t);
  const jwt = await token(COMPANY_A);
  const answers = await allAtOnce(api, () => api.call('POST', TRANSACTIONS, { body: change(1007, 'Decrease', 0, 1), as: jwt }));
  t.equal(answers.filter((r) => r.statusCode === 200).length, 20);
  t.ok(answers.filter((r) => r.statusCode !== 200).every((r) => r.json().ResponseStatus.ErrorCode === 'InsufficientBalance'));
  t.match(await codeRow(api, 1007), { remaining_usage: 0, number_of_uses_used: 20 });
  t.equal((await transactionsOf(api, 1007)).length, 20);
});

t.test('auth: write role or superadmin; other companies only for superadmin; another company\'s code is 404', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: null })).statusCode, 401, 'no token');
  for (const roles of [[READ], []]) {
    const res = await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: roles });
    expectRefusal(t, res, { status: 401, code: 'Unauthorized', name: `roles ${roles.join() || 'none'}` });
  }
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(2000, 'Decrease', 1, 0, { CompanyId: COMPANY_B }) })).statusCode, 401, 'another CompanyId');
  const foreign = await api.call('POST', TRANSACTIONS, { body: change(2000, 'Decrease', 1) });
  t.equal(foreign.statusCode, 404, 'another company\'s code');
  t.same(foreign.json().ResponseStatus, { ErrorCode: 'NotFound', Message: 'Rebate code 2000 not found.', Errors: [] });
  await unchanged.assert(t, 'refusals changed nothing');
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: [WRITE] })).statusCode, 200, 'write role');
  t.equal((await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: [SUPERADMIN] })).statusCode, 200, 'superadmin');
  const other = await api.call('POST', TRANSACTIONS, { body: change(2000, 'Decrease', 1, 0, { CompanyId: COMPANY_B }), as: [SUPERADMIN] });
  t.equal(other.statusCode, 200);
  t.match(other.json().RebateCodeTransactionItem, { CompanyId: COMPANY_B, RebateCodeId: 2000, Amount: -1 });
  t.equal((await codeRow(api, 2000)).remaining_amount, 299);
});

t.test('the answer as CSV', async (t) => {
  const api = await setup(t);
  const res = await api.call('POST', `${TRANSACTIONS}?format=csv`, { body: change(1000, 'Decrease', 2.5) });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="CreateRebateCodeTransaction.csv"');
  const [header, row] = res.body.split('\r\n');
  t.equal(header, 'ResponseStatus,RebateCodeTransactionItem');
  t.match(row, /^,"\{Id:\d+,CompanyId:aaaaaaaa-0000-4000-8000-00000000000a,RebateCodeId:1000,RebateCodeSign:GIFT-AAAA,/);
  t.match(row, /Amount:-2.5,Usage:0,/);
});
