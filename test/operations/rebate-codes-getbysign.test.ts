import t, { type TAP } from 'tap';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp } from '../helper.js';
import { ANNA, COMPANY_A, COMPANY_B, rebateData, snapshot } from '../fixtures/rebate-codes.js';

// GetRebateCodeBySign: GET /rebatecodes/getbysign

const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData });
type Api = Awaited<ReturnType<typeof setup>>;
type Params = Record<string, string | number | boolean>;

const url = (params: Params) =>
  `/rebatecodes/getbysign?${new URLSearchParams(Object.entries({ CompanyId: COMPANY_A, ServiceId: 100, IncludeConnectedServices: true, ...params }).map(([k, v]): [string, string] => [k, String(v)]))}`;
const get = async (api: Api, params: Params, headers?: Record<string, string>) =>
  api.inject({ method: 'GET', url: url(params), headers: headers ?? (await bearer(COMPANY_A, [READ])) });
/** A Saturday inside WEEKEND-10's window. */
const SATURDAY_NOON = '2026-06-06T12:00:00.000Z';

/** The assertions refusal() uses. */
type Asserts = Pick<TAP, 'equal' | 'match'>;

async function refusal(t: Asserts, api: Api, params: Params, errorCode: string, message: RegExp | string) {
  const res = await get(api, params);
  t.equal(res.statusCode, 400, errorCode);
  const status = res.json().ResponseStatus;
  t.equal(status.ErrorCode, errorCode);
  t.match(status.Message, message);
  t.equal(status.Errors[0].ErrorCode, errorCode);
  return status;
}

t.test('finds the code by sign in any case and answers the full object', async (t) => {
  const api = await setup(t);
  const res = await get(api, { RebateCodeSign: ' gift-aaaa ', IncludeConnectedDaysOfWeek: true, IncludeConnectedCustomers: true, Date: '2026-06-10T12:00:00.000Z' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body, {
    Id: 1000, CompanyId: COMPANY_A, RebateCodeSign: 'GIFT-AAAA', RebateCodeTypeId: 5, RebateCodeTypeName: 'GiftCard', RebateCodeValue: 500,
    RemainingAmount: 500, RebateCodeStatusId: 1, StatusName: 'Active', ActiveByStatus: true, PaymentReceived: true, CreatedBy: 'seed',
    ValidFrom: '2026-01-01T00:00:00.000Z', ValidTo: '2099-12-31T23:59:59.000Z', Name: 'Gift card 500', PriceSign: 'kr', RebateCodeCurrencySign: 'kr',
    Article: { Id: 1, ServiceIds: [100, 101] }, Company: { SitePath: 'salon-a', PaymentProviderId: 2 },
  });
  t.same(body.Services, [{ Id: 100, Name: 'Haircut', Description: 'Cut and style', Active: true }, { Id: 101, Name: 'Massage', Active: true }]);
  t.same(body.DaysOfWeek, []);
  t.same(body.Customers, []);
  t.same(body.Transactions, []);
  t.same(body.PaymentLog, [{ Id: 1, Amount: 500, CurrencyId: 'SEK', Comments: 'Card payment', Created: '2026-01-01T00:00:00.000Z', Updated: '2026-01-01T00:00:00.000Z' }]);
});

t.test('the Include flags decide whether Services, DaysOfWeek and Customers are present', async (t) => {
  const api = await setup(t);
  const all = (await get(api, { RebateCodeSign: 'WEEKEND-10', Date: SATURDAY_NOON, IncludeConnectedDaysOfWeek: true, IncludeConnectedCustomers: true })).json();
  t.same(all.DaysOfWeek, [
    { Id: 6, DayOfWeek: 'Saturday', DayOfWeekTranslation: 'Lördag', DayOfWeekActive: true, DayOfWeekSortOrder: 6 },
    { Id: 7, DayOfWeek: 'Sunday', DayOfWeekTranslation: 'Söndag', DayOfWeekActive: true, DayOfWeekSortOrder: 7 },
  ]);
  t.same(all.Services.map((s: { Id: number }) => s.Id), [100]);
  t.match(all, { FromTime: '08:00:00', ToTime: '17:00:00', RebateCodeTypeName: 'Percent' });
  const none = (await get(api, { RebateCodeSign: 'WEEKEND-10', Date: SATURDAY_NOON, IncludeConnectedServices: false })).json();
  t.notOk('Services' in none);
  t.notOk('DaysOfWeek' in none);
  t.notOk('Customers' in none);
  const vip = (await get(api, { RebateCodeSign: 'VIPONLY', CustomerEmail: 'anna.berg@EXAMPLE.com', IncludeConnectedCustomers: true })).json();
  t.same(vip.Customers, [{ Id: ANNA, Firstname: 'Anna', Lastname: 'Berg', Email: 'Anna.Berg@example.com', Phone: '0701111111' }]);
});

t.test('transactions are listed with their service and customer', async (t) => {
  const api = await setup(t);
  const body = (await get(api, { RebateCodeSign: 'PERCUST', CustomerEmail: 'bo@example.com' })).json();
  t.equal(body.Transactions.length, 4);
  t.same(body.Transactions[0], {
    Id: 1, CompanyId: COMPANY_A, RebateCodeId: 1005, RebateCodeSign: 'PERCUST', RebateCodeTypeId: 3, RebateCodeTypeName: 'PunchTicket',
    Amount: 0, Usage: '-1', UpdatedDate: '2026-02-01T00:00:00.000Z', CreatedDate: '2026-02-01T00:00:00.000Z',
    Service: { Id: 100, Name: 'Haircut', Description: 'Cut and style', Active: true },
    Customer: { Id: ANNA, Firstname: 'Anna', Lastname: 'Berg', Email: 'Anna.Berg@example.com', Phone: '0701111111' },
  });
  t.equal(body.Transactions[1].Usage, '1');
});

t.test('an unknown sign is 404; a sign of another company is not found in this one', async (t) => {
  const api = await setup(t);
  const res = await get(api, { RebateCodeSign: 'NOPE-NOPE' });
  t.equal(res.statusCode, 404);
  t.same(res.json().ResponseStatus, { ErrorCode: 'NotFound', Message: "Rebate code 'NOPE-NOPE' not found.", Errors: [] });
  const b = (await get(api, { RebateCodeSign: 'gift-aaaa', CompanyId: COMPANY_B, ServiceId: 200 })).json();
  t.match(b, { Id: 2000, CompanyId: COMPANY_B, RebateCodeValue: 300 }, 'the same sign in company B is B\'s code');
});

t.test('rule: status must be Active (RebateCodeInactive)', async (t) => {
  const api = await setup(t);
  await refusal(t, api, { RebateCodeSign: 'INACTIVE' }, 'RebateCodeInactive', "Rebate code 'INACTIVE' is not active (its status is Inactive).");
  await refusal(t, api, { RebateCodeSign: 'EXPIRED' }, 'RebateCodeInactive', /its status is Expired/);
});

t.test('rule: not before ValidFrom (RebateCodeNotYetValid), not after ValidTo (RebateCodeExpired)', async (t) => {
  const api = await setup(t);
  await refusal(t, api, { RebateCodeSign: 'GIFT-AAAA', Date: '2025-12-31T23:59:59.999Z' }, 'RebateCodeNotYetValid', /not valid until 2026-01-01T00:00:00.000Z/);
  t.equal((await get(api, { RebateCodeSign: 'GIFT-AAAA', Date: '2026-01-01T00:00:00.000Z' })).statusCode, 200, 'ValidFrom itself');
  await refusal(t, api, { RebateCodeSign: 'PAST' }, 'RebateCodeExpired', /expired at 2021-01-01T00:00:00.000Z/);
  t.equal((await get(api, { RebateCodeSign: 'PAST', Date: '2021-01-01T00:00:00.000Z' })).statusCode, 200, 'ValidTo itself');
});

t.test('rule: inside FromTime..ToTime (RebateCodeOutsideTimeWindow) and on its weekdays (RebateCodeInvalidDayOfWeek)', async (t) => {
  const api = await setup(t);
  await refusal(t, api, { RebateCodeSign: 'WEEKEND-10', Date: '2026-06-06T07:59:59.000Z' }, 'RebateCodeOutsideTimeWindow', /between 08:00:00\.\.17:00:00/);
  t.equal((await get(api, { RebateCodeSign: 'WEEKEND-10', Date: '2026-06-07T17:00:00.000Z' })).statusCode, 200, 'Sunday at ToTime');
  await refusal(t, api, { RebateCodeSign: 'WEEKEND-10', Date: '2026-06-08T12:00:00.000Z' }, 'RebateCodeInvalidDayOfWeek', 'only valid on Saturday, Sunday');
});

t.test('rule: for one of its services (RebateCodeInvalidService)', async (t) => {
  const api = await setup(t);
  const status = await refusal(t, api, { RebateCodeSign: 'GIFT-AAAA', ServiceId: 102 }, 'RebateCodeInvalidService', 'not valid for service 102');
  t.equal(status.Errors[0].FieldName, 'ServiceId');
  t.equal((await get(api, { RebateCodeSign: 'PUNCH-20', ServiceId: 102 })).statusCode, 200, 'no services: any service');
});

t.test('rule: something must remain (RebateCodeUsedUp)', async (t) => {
  const api = await setup(t);
  await refusal(t, api, { RebateCodeSign: 'USEDUP' }, 'RebateCodeUsedUp', 'no value remains');
  await refusal(t, api, { RebateCodeSign: 'MAXUSES' }, 'RebateCodeUsedUp', 'its 3 uses are used');
});

t.test('rule: MaxNumberOfUsesPerCustomer counts the customer\'s Decrease transactions (RebateCodeCustomerLimitReached)', async (t) => {
  const api = await setup(t);
  const status = await refusal(t, api, { RebateCodeSign: 'PERCUST', CustomerEmail: 'ANNA.BERG@example.com' }, 'RebateCodeCustomerLimitReached', 'has used it 2 time(s)');
  t.equal(status.Errors[0].FieldName, 'CustomerEmail');
  t.equal((await get(api, { RebateCodeSign: 'PERCUST', CustomerEmail: 'bo@example.com' })).statusCode, 200, 'Bo used it once');
  t.equal((await get(api, { RebateCodeSign: 'PERCUST' })).statusCode, 200, 'no e-mail: nobody to count');
});

t.test('rule: a code with connected customers is for them only (RebateCodeCustomerNotConnected)', async (t) => {
  const api = await setup(t);
  await refusal(t, api, { RebateCodeSign: 'VIPONLY', CustomerEmail: 'bo@example.com' }, 'RebateCodeCustomerNotConnected', 'not connected to the customer bo@example.com');
  await refusal(t, api, { RebateCodeSign: 'VIPONLY' }, 'RebateCodeCustomerNotConnected', /must name one of them/);
  t.equal((await get(api, { RebateCodeSign: 'VIPONLY', CustomerEmail: 'Anna.Berg@example.com' })).statusCode, 200);
});

t.test('every failing rule is listed; the first is the ErrorCode; nothing changes', async (t) => {
  const api = await setup(t);
  const before = await snapshot(api.store.db);
  const status = await refusal(t, api, { RebateCodeSign: 'INACTIVE', Date: '2030-01-01T00:00:00.000Z' }, 'RebateCodeInactive', /not active/);
  t.same(status.Errors.map((e: { ErrorCode: string; FieldName: string }) => [e.ErrorCode, e.FieldName]), [['RebateCodeInactive', 'RebateCodeSign']]);
  const many = await refusal(t, api, { RebateCodeSign: 'WEEKEND-10', Date: '2027-01-04T06:00:00.000Z', ServiceId: 101 }, 'RebateCodeExpired', /expired/);
  t.same(many.Errors.map((e: { ErrorCode: string }) => e.ErrorCode), ['RebateCodeExpired', 'RebateCodeOutsideTimeWindow', 'RebateCodeInvalidDayOfWeek', 'RebateCodeInvalidService']);
  t.same(await snapshot(api.store.db), before);
});

t.test('missing required parameters are validation failures', async (t) => {
  const api = await setup(t);
  const res = await api.inject({ method: 'GET', url: `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&ServiceId=100&IncludeConnectedServices=true`, headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 400);
  t.ok(res.json().ResponseStatus.Errors.some((e: { FieldName: string }) => e.FieldName === 'RebateCodeSign'));
  const badDate = await get(api, { RebateCodeSign: 'GIFT-AAAA', Date: '2026-06-06' });
  t.equal(badDate.statusCode, 400);
  t.equal(badDate.json().ResponseStatus.Errors[0].FieldName, 'Date');
});

t.test('auth: any authenticated caller may check any company\'s code', async (t) => {
  const api = await setup(t);
  t.equal((await api.inject({ method: 'GET', url: url({ RebateCodeSign: 'GIFT-AAAA' }) })).statusCode, 401, 'no token');
  for (const roles of [[WRITE], [READ], [SUPERADMIN], []]) {
    t.equal((await get(api, { RebateCodeSign: 'GIFT-AAAA' }, await bearer(COMPANY_A, roles))).statusCode, 200, `roles ${roles.join() || 'none'}`);
    t.equal((await get(api, { RebateCodeSign: 'GIFT-AAAA' }, await bearer(COMPANY_B, roles))).statusCode, 200, `company B caller, roles ${roles.join() || 'none'}`);
  }
  const fromB = await get(api, { RebateCodeSign: 'GIFT-AAAA', CompanyId: COMPANY_B, ServiceId: 200 }, await bearer(COMPANY_A, []));
  t.equal(fromB.json().Id, 2000, 'CompanyId decides whose code');
});

t.test('the answer as CSV', async (t) => {
  const api = await setup(t);
  const res = await api.inject({ method: 'GET', url: `${url({ RebateCodeSign: 'GIFT-AAAA' })}&format=csv`, headers: await bearer(COMPANY_A) });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="GetRebateCodeBySign.csv"');
  const [header, row] = res.body.split('\r\n');
  t.match(header, /^Id,CompanyId,ValidFrom,ValidTo,FromTime,ToTime,CreatedBy,/);
  t.match(row, /^1000,aaaaaaaa-0000-4000-8000-00000000000a,2026-01-01T00:00:00.000Z,2099-12-31T23:59:59.000Z,,,seed,/);
});
