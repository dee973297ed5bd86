import type { LightMyRequestResponse } from 'fastify';
import t, { type TAP } from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, bearer, buildTestApp } from '../helper.js';
import { ANNA, COMPANY_A, COMPANY_B, rebateData, snapshot } from '../fixtures/rebate-codes.js';

// CreateRebateCodeTransaction: POST /rebatecodes/transactions

const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData });
type Api = Awaited<ReturnType<typeof setup>>;
const post = async (api: Api, payload: object, headers?: Record<string, string>) =>
  api.inject({ method: 'POST', url: '/rebatecodes/transactions', headers: headers ?? (await bearer(COMPANY_A)), payload });
const change = (RebateCodeId: number, ChangeType: 'Increase' | 'Decrease', Amount: number, Usage = 0, rest: object = {}) =>
  ({ RebateCodeId, ChangeType, Amount, Usage, ...rest });
const codeRow = (api: Api, id: number) =>
  api.store.db.selectFrom('rebate_codes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const transactionsOf = (api: Api, id: number) =>
  api.store.db.selectFrom('rebate_code_transactions').selectAll().where('rebate_code_id', '=', id).orderBy('id').execute();

t.test('a Decrease of Amount takes value from the card, counts a use and answers the signed transaction', async (t) => {
  const api = await setup(t);
  const authorization = `Bearer ${await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'cashier-1' })}`;
  const res = await post(api, change(1000, 'Decrease', 120.55), { authorization });
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
  const item = (await post(api, change(1007, 'Increase', 0, 5))).json().RebateCodeTransactionItem;
  t.match(item, { Amount: 0, Usage: '5', RebateCodeTypeName: 'PunchTicket' });
  t.match(await codeRow(api, 1007), { remaining_usage: 25, number_of_uses_used: 0 });
  const decrease = (await post(api, change(1007, 'Decrease', 0, 2))).json().RebateCodeTransactionItem;
  t.equal(decrease.Usage, '-2');
  t.match(await codeRow(api, 1007), { remaining_usage: 23, number_of_uses_used: 1 });
});

t.test('a BookingId links the transaction to the booking, its service and customer', async (t) => {
  const api = await setup(t);
  const item = (await post(api, change(1000, 'Decrease', 50, 0, { BookingId: 500 }))).json().RebateCodeTransactionItem;
  t.match(item, {
    BookingId: 500,
    Service: { Id: 100, Name: 'Haircut', Active: true },
    Customer: { Id: ANNA, Firstname: 'Anna', Email: 'Anna.Berg@example.com' },
  });
  const before = await snapshot(api.store.db);
  for (const bookingId of [600, 9999]) {
    const res = await post(api, change(1000, 'Decrease', 50, 0, { BookingId: bookingId }));
    t.equal(res.statusCode, 400, `booking ${bookingId}`);
    t.same(res.json().ResponseStatus.Errors, [{ ErrorCode: 'InvalidBookingId', FieldName: 'BookingId', Message: "'Booking Id' must be a booking of the company." }]);
  }
  t.same(await snapshot(api.store.db), before, 'a refused request changes nothing');
});

t.test('money is rounded to 2 decimals: 0.1 then 0.2 empties a code holding 0.3', async (t) => {
  const api = await setup(t);
  t.equal((await post(api, change(1011, 'Decrease', 0.1))).statusCode, 200);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0.2);
  t.equal((await post(api, change(1011, 'Decrease', 0.2))).statusCode, 200);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0);
  t.equal((await post(api, change(1011, 'Increase', 0.1 + 0.2))).json().RebateCodeTransactionItem.Amount, 0.3);
  t.equal((await codeRow(api, 1011)).remaining_amount, 0.3);
  t.equal((await post(api, change(1000, 'Increase', 0.1 + 0.2))).statusCode, 200);
  t.equal((await codeRow(api, 1000)).remaining_amount, 500.3, 'added to a balance with no binary noise');
});

/** Posts a refused request and checks its ResponseStatus and that nothing changed. */
async function refused(t: Pick<TAP, 'equal' | 'match' | 'same'>, api: Api, payload: object, errorCode: string, fieldName: string, message: RegExp | string) {
  const before = await snapshot(api.store.db);
  const res = await post(api, payload);
  t.equal(res.statusCode, 400, errorCode);
  t.match(res.json().ResponseStatus, { ErrorCode: errorCode, Message: message, Errors: [{ ErrorCode: errorCode, FieldName: fieldName, Message: message }] });
  t.same(await snapshot(api.store.db), before, 'nothing changed');
}

t.test('at least one of Amount and Usage must be greater than 0', async (t) => {
  const api = await setup(t);
  await refused(t, api, change(1000, 'Decrease', 0, 0), 'GreaterThan', 'Amount', "'Amount' or 'Usage' must be greater than 0.");
});

t.test('Amount needs a code with RemainingAmount, Usage one with RemainingUsage', async (t) => {
  const api = await setup(t);
  await refused(t, api, change(1007, 'Decrease', 5, 1), 'AmountNotApplicable', 'Amount', /carries no value/);
  await refused(t, api, change(1000, 'Increase', 0, 1), 'UsageNotApplicable', 'Usage', /carries no uses/);
  await refused(t, api, change(1004, 'Decrease', 1), 'AmountNotApplicable', 'Amount', /MAXUSES/);
});

t.test('a Decrease beyond what remains is 400 InsufficientBalance and changes nothing', async (t) => {
  const api = await setup(t);
  await refused(t, api, change(1000, 'Decrease', 500.01), 'InsufficientBalance', 'Amount', "Rebate code 'GIFT-AAAA' has 500 remaining; cannot decrease by 500.01.");
  await refused(t, api, change(1007, 'Decrease', 0, 21), 'InsufficientBalance', 'Usage', /has 20 uses remaining/);
  t.equal((await post(api, change(1000, 'Decrease', 500))).statusCode, 200, 'exactly all is fine');
  t.equal((await codeRow(api, 1000)).remaining_amount, 0);
});

t.test('an inactive, expired or used-up code refuses a Decrease; an Increase is still allowed', async (t) => {
  const api = await setup(t);
  await refused(t, api, change(1009, 'Decrease', 1), 'RebateCodeInactive', 'RebateCodeSign', /its status is Expired/);
  await refused(t, api, change(1010, 'Decrease', 1), 'RebateCodeExpired', 'Date', /expired at 2021-01-01/);
  await refused(t, api, change(1012, 'Decrease', 1), 'RebateCodeUsedUp', 'RebateCodeId', /its 1 uses are used/);
  t.equal((await post(api, change(1009, 'Increase', 10))).statusCode, 200);
  t.equal((await codeRow(api, 1009)).remaining_amount, 60);
});

t.test('invalid bodies are validation failures', async (t) => {
  const api = await setup(t);
  const before = await snapshot(api.store.db);
  for (const payload of [change(1000, 'Decrease', -1), { ...change(1000, 'Decrease', 1), ChangeType: 'Refund' }, { RebateCodeId: 1000 }]) {
    const res = await post(api, payload);
    t.equal(res.statusCode, 400);
    t.ok(res.json().ResponseStatus.Errors.length > 0);
  }
  t.same(await snapshot(api.store.db), before);
});

/**
 * 50 requests through Promise.all of injects, made to overlap: a transaction holds the
 * store's connection until every request has reached the store, so all 50 read the code
 * while 20 remain, and only the conditional UPDATE can keep them from overspending.
 */
async function allAtOnce(api: Api, request: () => Promise<LightMyRequestResponse>) {
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
  const headers = await bearer(COMPANY_A);
  const answers = await allAtOnce(api, () => post(api, change(1008, 'Decrease', 1), headers));
  t.equal(answers.filter((r) => r.statusCode === 200).length, 20);
  const refusals = answers.filter((r) => r.statusCode !== 200);
  t.equal(refusals.length, 30);
  t.ok(refusals.every((r) => r.statusCode === 400 && r.json().ResponseStatus.ErrorCode === 'InsufficientBalance'));
  t.match(await codeRow(api, 1008), { remaining_amount: 0, number_of_uses_used: 20 });
  t.equal((await transactionsOf(api, 1008)).length, 20);
});

t.test('50 concurrent Decreases of 1 Usage on 20 remaining: exactly 20 succeed', async (t) => {
  const api = await setup(t);
  const headers = await bearer(COMPANY_A);
  const answers = await allAtOnce(api, () => post(api, change(1007, 'Decrease', 0, 1), headers));
  t.equal(answers.filter((r) => r.statusCode === 200).length, 20);
  t.ok(answers.filter((r) => r.statusCode !== 200).every((r) => r.json().ResponseStatus.ErrorCode === 'InsufficientBalance'));
  t.match(await codeRow(api, 1007), { remaining_usage: 0, number_of_uses_used: 20 });
  t.equal((await transactionsOf(api, 1007)).length, 20);
});

t.test('auth: write role or superadmin; other companies only for superadmin; another company\'s code is 404', async (t) => {
  const api = await setup(t);
  const before = await snapshot(api.store.db);
  t.equal((await api.inject({ method: 'POST', url: '/rebatecodes/transactions', payload: change(1000, 'Decrease', 1) })).statusCode, 401, 'no token');
  for (const roles of [[READ], []]) {
    const res = await post(api, change(1000, 'Decrease', 1), await bearer(COMPANY_A, roles));
    t.equal(res.statusCode, 401, `roles ${roles.join() || 'none'}`);
    t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized');
  }
  t.equal((await post(api, change(2000, 'Decrease', 1, 0, { CompanyId: COMPANY_B }))).statusCode, 401, 'another CompanyId');
  const foreign = await post(api, change(2000, 'Decrease', 1));
  t.equal(foreign.statusCode, 404, 'another company\'s code');
  t.same(foreign.json().ResponseStatus, { ErrorCode: 'NotFound', Message: 'Rebate code 2000 not found.', Errors: [] });
  t.same(await snapshot(api.store.db), before, 'refusals changed nothing');
  t.equal((await post(api, change(1000, 'Decrease', 1), await bearer(COMPANY_A, [WRITE]))).statusCode, 200, 'write role');
  t.equal((await post(api, change(1000, 'Decrease', 1), await bearer(COMPANY_A, [SUPERADMIN]))).statusCode, 200, 'superadmin');
  const other = await post(api, change(2000, 'Decrease', 1, 0, { CompanyId: COMPANY_B }), await bearer(COMPANY_A, [SUPERADMIN]));
  t.equal(other.statusCode, 200);
  t.match(other.json().RebateCodeTransactionItem, { CompanyId: COMPANY_B, RebateCodeId: 2000, Amount: -1 });
  t.equal((await codeRow(api, 2000)).remaining_amount, 299);
});

t.test('the answer as CSV', async (t) => {
  const api = await setup(t);
  const res = await api.inject({ method: 'POST', url: '/rebatecodes/transactions?format=csv', headers: await bearer(COMPANY_A), payload: change(1000, 'Decrease', 2.5) });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="CreateRebateCodeTransaction.csv"');
  const [header, row] = res.body.split('\r\n');
  t.equal(header, 'ResponseStatus,RebateCodeTransactionItem');
  t.match(row, /^,"\{Id:\d+,CompanyId:aaaaaaaa-0000-4000-8000-00000000000a,RebateCodeId:1000,RebateCodeSign:GIFT-AAAA,/);
  t.match(row, /Amount:-2.5,Usage:0,/);
});
