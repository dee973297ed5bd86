import t from 'tap';
import {
  checkCustomerConnected,
  checkCustomerLimit,
  checkDayOfWeek,
  checkPeriod,
  checkRemaining,
  checkService,
  checkStatus,
  checkTimeWindow,
  isoWeekday,
  validityFailures,
  type RebateCodeFacts,
} from '../../src/domain/rebate-codes.js';

// GetRebateCodeBySign's validity rules, without HTTP.

const base: RebateCodeFacts = {
  sign: 'ABCD-EFGH',
  statusId: 1,
  validFrom: '2026-06-01T00:00:00.000Z',
  validTo: '2026-06-30T23:59:59.000Z',
  daysOfWeek: [],
  serviceIds: [],
  maxNumberOfUses: 0,
  numberOfUsesUsed: 0,
  remainingAmount: null,
  remainingUsage: null,
  maxNumberOfUsesPerCustomer: 0,
  customerEmails: [],
};
const code = (over: Partial<RebateCodeFacts>): RebateCodeFacts => ({ ...base, ...over });
const at = (iso: string) => new Date(iso);

t.test('status: only Active (1) passes; Inactive and Expired fail as RebateCodeInactive', async (t) => {
  t.equal(checkStatus(code({ statusId: 1 })), undefined);
  t.match(checkStatus(code({ statusId: 2 })), { ErrorCode: 'RebateCodeInactive', FieldName: 'RebateCodeSign', Message: /not active \(its status is Inactive\)/ });
  t.match(checkStatus(code({ statusId: 3 })), { ErrorCode: 'RebateCodeInactive', Message: /Expired/ });
});

t.test('period: ValidFrom and ValidTo are both valid instants, one millisecond outside is not', async (t) => {
  t.equal(checkPeriod(base, at('2026-06-01T00:00:00.000Z')), undefined, 'the instant of ValidFrom');
  t.equal(checkPeriod(base, at('2026-06-30T23:59:59.000Z')), undefined, 'the instant of ValidTo');
  t.match(checkPeriod(base, at('2026-05-31T23:59:59.999Z')), { ErrorCode: 'RebateCodeNotYetValid', FieldName: 'Date', Message: /not valid until 2026-06-01T00:00:00.000Z/ });
  t.match(checkPeriod(base, at('2026-06-30T23:59:59.001Z')), { ErrorCode: 'RebateCodeExpired', FieldName: 'Date', Message: /expired at 2026-06-30T23:59:59.000Z/ });
});

t.test('time window: both edges are inside (UTC), a millisecond beyond is outside', async (t) => {
  const windowed = code({ fromTime: '08:00:00', toTime: '17:00:00' });
  t.equal(checkTimeWindow(windowed, at('2026-06-10T08:00:00.000Z')), undefined, 'FromTime itself');
  t.equal(checkTimeWindow(windowed, at('2026-06-10T17:00:00.000Z')), undefined, 'ToTime itself');
  t.match(checkTimeWindow(windowed, at('2026-06-10T07:59:59.999Z')), { ErrorCode: 'RebateCodeOutsideTimeWindow', FieldName: 'Date', Message: /08:00:00\.\.17:00:00 \(UTC\)/ });
  t.match(checkTimeWindow(windowed, at('2026-06-10T17:00:00.001Z')), { ErrorCode: 'RebateCodeOutsideTimeWindow' });
  t.match(checkTimeWindow(windowed, at('2026-06-10T09:00:00.000+02:00')), { ErrorCode: 'RebateCodeOutsideTimeWindow' }, '09:00+02:00 is 07:00 UTC');
});

t.test('time window: no window is all day; one edge bounds one side; a window may run over midnight', async (t) => {
  t.equal(checkTimeWindow(base, at('2026-06-10T03:00:00.000Z')), undefined);
  t.equal(checkTimeWindow(code({ fromTime: '12:00:00' }), at('2026-06-10T23:59:59.999Z')), undefined);
  t.ok(checkTimeWindow(code({ fromTime: '12:00:00' }), at('2026-06-10T11:59:59.000Z')));
  t.equal(checkTimeWindow(code({ toTime: '12:00:00' }), at('2026-06-10T00:00:00.000Z')), undefined);
  t.ok(checkTimeWindow(code({ toTime: '12:00:00' }), at('2026-06-10T12:00:01.000Z')));
  const night = code({ fromTime: '22:00:00', toTime: '02:00:00' });
  t.equal(checkTimeWindow(night, at('2026-06-10T23:00:00.000Z')), undefined);
  t.equal(checkTimeWindow(night, at('2026-06-10T02:00:00.000Z')), undefined);
  t.ok(checkTimeWindow(night, at('2026-06-10T12:00:00.000Z')));
});

t.test('weekdays: 1 Monday .. 7 Sunday, in UTC', async (t) => {
  // 2026-06-08 is a Monday.
  for (let day = 1; day <= 7; day++) {
    const instant = at(`2026-06-${String(7 + day).padStart(2, '0')}T12:00:00.000Z`);
    t.equal(isoWeekday(instant), day, `day ${day}`);
    t.equal(checkDayOfWeek(code({ daysOfWeek: [day] }), instant), undefined, `valid on its own day ${day}`);
    const other = day === 7 ? 1 : day + 1;
    t.match(checkDayOfWeek(code({ daysOfWeek: [other] }), instant), { ErrorCode: 'RebateCodeInvalidDayOfWeek', FieldName: 'Date' }, `not on day ${day}`);
  }
  t.equal(isoWeekday(at('2026-06-14T23:59:59.999Z')), 7, 'Sunday is 7, not 0');
  t.equal(isoWeekday(at('2026-06-15T00:30:00.000+02:00')), 7, 'the UTC day counts (Sunday 22:30 UTC)');
  t.equal(checkDayOfWeek(base, at('2026-06-10T12:00:00.000Z')), undefined, 'no days: every day');
  t.match(checkDayOfWeek(code({ daysOfWeek: [6, 7] }), at('2026-06-10T12:00:00.000Z')), { Message: /only valid on Saturday, Sunday/ });
});

t.test('services: any service when none are connected, else one of them', async (t) => {
  t.equal(checkService(base, 5), undefined);
  t.equal(checkService(code({ serviceIds: [1, 2] }), 2), undefined);
  t.match(checkService(code({ serviceIds: [1, 2] }), 3), { ErrorCode: 'RebateCodeInvalidService', FieldName: 'ServiceId', Message: /not valid for service 3/ });
});

t.test('used up: MaxNumberOfUses reached, RemainingAmount 0 or RemainingUsage 0', async (t) => {
  t.equal(checkRemaining(code({ maxNumberOfUses: 3, numberOfUsesUsed: 2 })), undefined);
  t.match(checkRemaining(code({ maxNumberOfUses: 3, numberOfUsesUsed: 3 })), { ErrorCode: 'RebateCodeUsedUp', Message: /its 3 uses are used/ });
  t.equal(checkRemaining(code({ maxNumberOfUses: 0, numberOfUsesUsed: 99 })), undefined, '0 is unlimited');
  t.match(checkRemaining(code({ remainingAmount: 0 })), { ErrorCode: 'RebateCodeUsedUp', Message: /no value remains/ });
  t.equal(checkRemaining(code({ remainingAmount: 0.01 })), undefined);
  t.match(checkRemaining(code({ remainingUsage: 0 })), { ErrorCode: 'RebateCodeUsedUp', Message: /no uses remain/ });
  t.equal(checkRemaining(code({ remainingUsage: 1 })), undefined);
});

t.test('per-customer limit: reached when the customer has as many Decrease uses as allowed', async (t) => {
  const limited = code({ maxNumberOfUsesPerCustomer: 2 });
  t.equal(checkCustomerLimit(limited, 'a@example.com', 1), undefined);
  t.match(checkCustomerLimit(limited, 'a@example.com', 2), { ErrorCode: 'RebateCodeCustomerLimitReached', FieldName: 'CustomerEmail', Message: /2 time\(s\) per customer; a@example.com has used it 2/ });
  t.equal(checkCustomerLimit(limited, undefined, 5), undefined, 'no e-mail: nobody to count');
  t.equal(checkCustomerLimit(base, 'a@example.com', 50), undefined, '0 is unlimited');
});

t.test('connected customers: the e-mail must be one of theirs, case-insensitively', async (t) => {
  t.equal(checkCustomerConnected(base, undefined), undefined, 'no connected customers: anyone');
  const vip = code({ customerEmails: ['Anna@Example.com'] });
  t.equal(checkCustomerConnected(vip, ' anna@example.COM '), undefined);
  t.match(checkCustomerConnected(vip, 'bo@example.com'), { ErrorCode: 'RebateCodeCustomerNotConnected', FieldName: 'CustomerEmail', Message: /not connected to the customer bo@example.com/ });
  t.match(checkCustomerConnected(vip, undefined), { ErrorCode: 'RebateCodeCustomerNotConnected', Message: /must name one of them/ });
  t.ok(checkCustomerConnected(code({ customerEmails: [''] }), 'x@example.com'), 'a connected customer without e-mail still restricts');
});

t.test('connected customers: the receiver the code was bought for may use it too', async (t) => {
  const gift = code({ customerEmails: ['buyer@example.com'], receiverEmail: 'Receiver@Example.com' });
  t.equal(checkCustomerConnected(gift, 'receiver@example.com'), undefined);
  t.equal(checkCustomerConnected(gift, 'buyer@example.com'), undefined);
  t.match(checkCustomerConnected(gift, 'someone@example.com'), { ErrorCode: 'RebateCodeCustomerNotConnected' });
});

t.test('validityFailures lists every failing rule in the contract order', async (t) => {
  const everything = code({
    statusId: 2, daysOfWeek: [1], serviceIds: [1], remainingAmount: 0, maxNumberOfUsesPerCustomer: 1,
    customerEmails: ['x@example.com'], fromTime: '08:00:00', toTime: '09:00:00',
  });
  const failures = validityFailures(everything, { at: at('2026-07-05T12:00:00.000Z'), serviceId: 2, customerEmail: 'y@example.com', customerUses: 1 });
  t.same(failures.map((f) => f.ErrorCode), [
    'RebateCodeInactive', 'RebateCodeExpired', 'RebateCodeOutsideTimeWindow', 'RebateCodeInvalidDayOfWeek',
    'RebateCodeInvalidService', 'RebateCodeUsedUp', 'RebateCodeCustomerLimitReached', 'RebateCodeCustomerNotConnected',
  ]);
  t.same(validityFailures(base, { at: at('2026-06-10T12:00:00.000Z'), serviceId: 1, customerUses: 0 }), [], 'a plain code passes');
});
