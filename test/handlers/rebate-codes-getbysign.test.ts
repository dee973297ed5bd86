import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { ANNA, rebateData } from '../fixtures/rebate-codes.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot, type Refusal } from '../helper.js';

// GetRebateCodeBySign: GET /rebatecodes/getbysign

/** The app on the rebate code data; the calls are a read administrator's of company A unless they say otherwise. */
const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData, as: [READ] });
type Params = Record<string, string | number | boolean>;

/** The lookup of a sign in company A for service 100, with its services, unless `params` says otherwise. */
const bySign = (sign: string, params: Params = {}) => {
  const query = { CompanyId: COMPANY_A, ServiceId: 100, IncludeConnectedServices: true, RebateCodeSign: sign, ...params };
  return `/rebatecodes/getbysign?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`;
};
/** A Saturday inside WEEKEND-10's window. */
const SATURDAY_NOON = '2026-06-06T12:00:00.000Z';
/** A rule refused the code: a 400 that leads with the rule's error. */
const broken = (code: string, message: string | RegExp): Refusal => ({ status: 400, code, message, leads: true, name: code });

t.test('finds the code by sign in any case and answers the full object', async (t) => {
  const api = await setup(t);
  const res = await api.call('GET', bySign(' gift-aaaa ', { IncludeConnectedDaysOfWeek: true, IncludeConnectedCustomers: true, Date: '2026-06-10T12:00:00.000Z' }));
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
  const all = (await api.call('GET', bySign('WEEKEND-10', { Date: SATURDAY_NOON, IncludeConnectedDaysOfWeek: true, IncludeConnectedCustomers: true }))).json();
  t.same(all.DaysOfWeek, [
    { Id: 6, DayOfWeek: 'Saturday', DayOfWeekTranslation: 'Lördag', DayOfWeekActive: true, DayOfWeekSortOrder: 6 },
    { Id: 7, DayOfWeek: 'Sunday', DayOfWeekTranslation: 'Söndag', DayOfWeekActive: true, DayOfWeekSortOrder: 7 },
  ]);
  t.same(all.Services.map((s: { Id: number }) => s.Id), [100]);
  t.match(all, { FromTime: '08:00:00', ToTime: '17:00:00', RebateCodeTypeName: 'Percent' });
  const none = (await api.call('GET', bySign('WEEKEND-10', { Date: SATURDAY_NOON, IncludeConnectedServices: false }))).json();
  t.notOk('Services' in none);
  t.notOk('DaysOfWeek' in none);
  t.notOk('Customers' in none);
  const vip = (await api.call('GET', bySign('VIPONLY', { CustomerEmail: 'anna.berg@EXAMPLE.com', IncludeConnectedCustomers: true }))).json();
  t.same(vip.Customers, [{ Id: ANNA, Firstname: 'Anna', Lastname: 'Berg', Email: 'Anna.Berg@example.com', Phone: '0701111111' }]);
});

t.test('transactions are listed with their service and customer', async (t) => {
  const api = await setup(t);
  const body = (await api.call('GET', bySign('PERCUST', { CustomerEmail: 'bo@example.com' }))).json();
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
  const res = await api.call('GET', bySign('NOPE-NOPE'));
  t.equal(res.statusCode, 404);
  t.same(res.json().ResponseStatus, { ErrorCode: 'NotFound', Message: "Rebate code 'NOPE-NOPE' not found.", Errors: [] });
  const b = (await api.call('GET', bySign('gift-aaaa', { CompanyId: COMPANY_B, ServiceId: 200 }))).json();
  t.match(b, { Id: 2000, CompanyId: COMPANY_B, RebateCodeValue: 300 }, 'the same sign in company B is B\'s code');
});

t.test('rule: status must be Active (RebateCodeInactive)', async (t) => {
  const api = await setup(t);
  expectRefusal(t, await api.call('GET', bySign('INACTIVE')), broken('RebateCodeInactive', "Rebate code 'INACTIVE' is not active (its status is Inactive)."));
  expectRefusal(t, await api.call('GET', bySign('EXPIRED')), broken('RebateCodeInactive', /its status is Expired/));
});

t.test('rule: not before ValidFrom (RebateCodeNotYetValid), not after ValidTo (RebateCodeExpired)', async (t) => {
  const api = await setup(t);
  expectRefusal(t, await api.call('GET', bySign('GIFT-AAAA', { Date: '2025-12-31T23:59:59.999Z' })), broken('RebateCodeNotYetValid', /not valid until 2026-01-01T00:00:00.000Z/));
  t.equal((await api.call('GET', bySign('GIFT-AAAA', { Date: '2026-01-01T00:00:00.000Z' }))).statusCode, 200, 'ValidFrom itself');
  expectRefusal(t, await api.call('GET', bySign('PAST')), broken('RebateCodeExpired', /expired at 2021-01-01T00:00:00.000Z/));
  t.equal((await api.call('GET', bySign('PAST', { Date: '2021-01-01T00:00:00.000Z' }))).statusCode, 200, 'ValidTo itself');
});

t.test('rule: inside FromTime..ToTime (RebateCodeOutsideTimeWindow) and on its weekdays (RebateCodeInvalidDayOfWeek)', async (t) => {
  const api = await setup(t);
  expectRefusal(t, await api.call('GET', bySign('WEEKEND-10', { Date: '2026-06-06T07:59:59.000Z' })), broken('RebateCodeOutsideTimeWindow', /between 08:00:00\.\.17:00:00/));
  t.equal((await api.call('GET', bySign('WEEKEND-10', { Date: '2026-06-07T17:00:00.000Z' }))).statusCode, 200, 'Sunday at ToTime');
  expectRefusal(t, await api.call('GET', bySign('WEEKEND-10', { Date: '2026-06-08T12:00:00.000Z' })), broken('RebateCodeInvalidDayOfWeek', /only valid on Saturday, Sunday/));
});

t.test('rule: for one of its services (RebateCodeInvalidService)', async (t) => {
  const api = await setup(t);
  const status = expectRefusal(t, await api.call('GET', bySign('GIFT-AAAA', { ServiceId: 102 })), broken('RebateCodeInvalidService', /not valid for service 102/));
  t.equal(status.Errors[0].FieldName, 'ServiceId');
  t.equal((await api.call('GET', bySign('PUNCH-20', { ServiceId: 102 }))).statusCode, 200, 'no services: any service');
});

t.test('rule: something must remain (RebateCodeUsedUp)', async (t) => {
  const api = await setup(t);
  expectRefusal(t, await api.call('GET', bySign('USEDUP')), broken('RebateCodeUsedUp', /no value remains/));
  expectRefusal(t, await api.call('GET', bySign('MAXUSES')), broken('RebateCodeUsedUp', /its 3 uses are used/));
});

t.test('rule: MaxNumberOfUsesPerCustomer counts the customer\'s Decrease transactions (RebateCodeCustomerLimitReached)', async (t) => {
  const api = await setup(t);
  const anna = await api.call('GET', bySign('PERCUST', { CustomerEmail: 'ANNA.BERG@example.com' }));
  const status = expectRefusal(t, anna, broken('RebateCodeCustomerLimitReached', /has used it 2 time\(s\)/));
  t.equal(status.Errors[0].FieldName, 'CustomerEmail');
  t.equal((await api.call('GET', bySign('PERCUST', { CustomerEmail: 'bo@example.com' }))).statusCode, 200, 'Bo used it once');
  t.equal((await api.call('GET', bySign('PERCUST'))).statusCode, 200, 'no e-mail: nobody to count');
});

t.test('rule: a code with connected customers is for them only (RebateCodeCustomerNotConnected)', async (t) => {
  const api = await setup(t);
  const bo = await api.call('GET', bySign('VIPONLY', { CustomerEmail: 'bo@example.com' }));
  expectRefusal(t, bo, broken('RebateCodeCustomerNotConnected', /not connected to the customer bo@example\.com/));
  expectRefusal(t, await api.call('GET', bySign('VIPONLY')), broken('RebateCodeCustomerNotConnected', /must name one of them/));
  t.equal((await api.call('GET', bySign('VIPONLY', { CustomerEmail: 'Anna.Berg@example.com' }))).statusCode, 200);
});

t.test('every failing rule is listed; the first is the ErrorCode; nothing changes', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  const status = expectRefusal(t, await api.call('GET', bySign('INACTIVE', { Date: '2030-01-01T00:00:00.000Z' })), broken('RebateCodeInactive', /not active/));
  t.same(status.Errors.map((e: { ErrorCode: string; FieldName: string }) => [e.ErrorCode, e.FieldName]), [['RebateCodeInactive', 'RebateCodeSign']]);
  const many = expectRefusal(t, await api.call('GET', bySign('WEEKEND-10', { Date: '2027-01-04T06:00:00.000Z', ServiceId: 101 })), broken('RebateCodeExpired', /expired/));
  t.same(many.Errors.map((e: { ErrorCode: string }) => e.ErrorCode), ['RebateCodeExpired', 'RebateCodeOutsideTimeWindow', 'RebateCodeInvalidDayOfWeek', 'RebateCodeInvalidService']);
  await unchanged.assert(t);
});

t.test('missing required parameters are validation failures', async (t) => {
  const api = await setup(t);
  const res = await api.call('GET', `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&ServiceId=100&IncludeConnectedServices=true`, { as: [WRITE] });
  t.equal(res.statusCode, 400);
  t.ok(res.json().ResponseStatus.Errors.some((e: { FieldName: string }) => e.FieldName === 'RebateCodeSign'));
  // A date alone is a valid Date (midnight UTC: docs/decisions.md, "Wire format"); another
  // form is not.
  expectRefusal(t, await api.call('GET', bySign('GIFT-AAAA', { Date: '06/06/2026' })), { status: 400, field: 'Date' });
});

t.test('auth: any authenticated caller may check any company\'s code', async (t) => {
  const api = await setup(t);
  t.equal((await api.call('GET', bySign('GIFT-AAAA'), { as: null })).statusCode, 401, 'no token');
  for (const roles of [[WRITE], [READ], [SUPERADMIN], []]) {
    t.equal((await api.call('GET', bySign('GIFT-AAAA'), { as: roles })).statusCode, 200, `roles ${roles.join() || 'none'}`);
    t.equal((await api.call('GET', bySign('GIFT-AAAA'), { as: roles, company: COMPANY_B })).statusCode, 200, `company B caller, roles ${roles.join() || 'none'}`);
  }
  const fromB = await api.call('GET', bySign('GIFT-AAAA', { CompanyId: COMPANY_B, ServiceId: 200 }), { as: [] });
  t.equal(fromB.json().Id, 2000, 'CompanyId decides whose code');
});

t.test('the answer as CSV', async (t) => {
  const api = await setup(t);
  const res = await api.call('GET', `${bySign('GIFT-AAAA')}&format=csv`, { as: [WRITE] });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="GetRebateCodeBySign.csv"');
  const [header, row] = res.body.split('\r\n');
  t.match(header, /^Id,CompanyId,ValidFrom,ValidTo,FromTime,ToTime,CreatedBy,/);
  t.match(row, /^1000,aaaaaaaa-0000-4000-8000-00000000000a,2026-01-01T00:00:00.000Z,2099-12-31T23:59:59.000Z,,,seed,/);
});
