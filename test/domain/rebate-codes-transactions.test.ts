import t from 'tap';
import { planTransaction, roundMoney, type TransactionRequest, type RebateCodeFacts } from '../../src/domain/rebate-codes.js';

// CreateRebateCodeTransaction's arithmetic, without HTTP.

const now = new Date('2026-06-10T12:00:00.000Z');
const card: RebateCodeFacts = {
  sign: 'CARD-0001',
  statusId: 1,
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: '2026-12-31T00:00:00.000Z',
  daysOfWeek: [],
  serviceIds: [],
  maxNumberOfUses: 0,
  numberOfUsesUsed: 0,
  remainingAmount: 100,
  remainingUsage: null,
  maxNumberOfUsesPerCustomer: 0,
  customerEmails: [],
};
const punch: RebateCodeFacts = { ...card, sign: 'PUNCH-0001', remainingAmount: null, remainingUsage: 10 };
const decrease = (amount: number, usage = 0): TransactionRequest => ({ amount, usage, changeType: 'Decrease' });
const increase = (amount: number, usage = 0): TransactionRequest => ({ amount, usage, changeType: 'Increase' });

t.test('money is rounded to 2 decimals without binary noise', async (t) => {
  t.equal(roundMoney(0.1 + 0.2), 0.3);
  t.equal(roundMoney(1.005), 1.01, 'half away from zero even when the double is just below');
  t.equal(roundMoney(2.675), 2.68);
  t.equal(roundMoney(10), 10);
  t.equal(roundMoney(0.004), 0);
  t.equal(roundMoney(-1.005), -1.01);
});

t.test('a decrease subtracts, signs its changes negative and counts one use', async (t) => {
  t.same(planTransaction(card, decrease(25.5), now), { plan: { amountDelta: -25.5, usageDelta: -0, countsUse: true } });
  t.same(planTransaction(punch, decrease(0, 3), now).plan, { amountDelta: -0, usageDelta: -3, countsUse: true });
});

t.test('an increase adds and does not count a use', async (t) => {
  t.same(planTransaction(card, increase(10.25), now).plan, { amountDelta: 10.25, usageDelta: 0, countsUse: false });
  t.same(planTransaction(punch, increase(0, 2), now).plan, { amountDelta: 0, usageDelta: 2, countsUse: false });
});

// What remains after a plan is the store's conditional UPDATE (rounded in SQL): see
// test/handlers/rebate-codes-transactions.test.ts, "money is rounded to 2 decimals".
t.test('a plan changes by whole cents: 0.1 + 0.2 is a change of 0.3', async (t) => {
  t.equal(planTransaction(card, increase(0.1 + 0.2), now).plan!.amountDelta, 0.3);
  t.equal(planTransaction({ ...card, remainingAmount: 0.3 }, decrease(0.1 + 0.2), now).plan!.amountDelta, -0.3, 'all of 0.3 may be taken');
});

t.test('at least one of Amount and Usage must be greater than 0', async (t) => {
  t.match(planTransaction(card, decrease(0, 0), now).failure, { ErrorCode: 'GreaterThan', FieldName: 'Amount', Message: "'Amount' or 'Usage' must be greater than 0." });
  t.match(planTransaction(card, increase(0.001), now).failure, { ErrorCode: 'GreaterThan' }, 'less than a cent rounds to 0');
});

t.test('Amount needs a code with RemainingAmount, Usage one with RemainingUsage', async (t) => {
  t.match(planTransaction(punch, increase(5), now).failure, { ErrorCode: 'AmountNotApplicable', FieldName: 'Amount' });
  t.match(planTransaction(card, decrease(0, 1), now).failure, { ErrorCode: 'UsageNotApplicable', FieldName: 'Usage' });
  const percent = { ...card, remainingAmount: null };
  t.match(planTransaction(percent, decrease(1), now).failure, { ErrorCode: 'AmountNotApplicable' });
});

t.test('a decrease beyond what remains is refused as InsufficientBalance; exactly all is fine', async (t) => {
  t.match(planTransaction(card, decrease(100.01), now).failure, { ErrorCode: 'InsufficientBalance', FieldName: 'Amount', Message: /has 100 remaining; cannot decrease by 100.01/ });
  t.ok(planTransaction(card, decrease(100), now).plan);
  t.match(planTransaction(punch, decrease(0, 11), now).failure, { ErrorCode: 'InsufficientBalance', FieldName: 'Usage' });
  t.ok(planTransaction(punch, decrease(0, 10), now).plan);
  t.ok(planTransaction(card, increase(1000), now).plan, 'an increase has no upper bound');
});

t.test('an inactive, expired or used-up code refuses a decrease but accepts an increase', async (t) => {
  t.match(planTransaction({ ...card, statusId: 2 }, decrease(1), now).failure, { ErrorCode: 'RebateCodeInactive' });
  t.match(planTransaction({ ...card, statusId: 3 }, decrease(1), now).failure, { ErrorCode: 'RebateCodeInactive' });
  t.match(planTransaction({ ...card, validTo: '2026-06-10T11:59:59.999Z' }, decrease(1), now).failure, { ErrorCode: 'RebateCodeExpired' });
  t.match(planTransaction({ ...card, validFrom: '2026-06-10T12:00:00.001Z' }, decrease(1), now).failure, { ErrorCode: 'RebateCodeNotYetValid' });
  t.match(planTransaction({ ...card, maxNumberOfUses: 2, numberOfUsesUsed: 2 }, decrease(1), now).failure, { ErrorCode: 'RebateCodeUsedUp' });
  t.ok(planTransaction({ ...card, statusId: 2 }, increase(1), now).plan);
});
