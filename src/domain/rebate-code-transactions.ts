/**
 * The arithmetic of CreateRebateCodeTransaction, free of HTTP and SQL. The store applies
 * a plan with one conditional UPDATE (so concurrent decreases never overspend); these
 * functions decide what the plan is and why a request is refused.
 */
import { checkPeriod, checkStatus, type RebateCodeFacts } from './rebate-codes.js';
import { invalid, label, type FieldError, type Wording } from './refusals.js';

export type ChangeType = 'Increase' | 'Decrease';

/** Money to 2 decimals, half away from zero, immune to binary noise (0.1 + 0.2 → 0.3, 1.005 → 1.01). */
export function roundMoney(value: number): number {
  return (Math.sign(value) * Math.round(Math.abs(value) * 100 * (1 + Number.EPSILON))) / 100;
}

export interface TransactionRequest {
  amount: number;
  usage: number;
  changeType: ChangeType;
}

/** Signed changes: negative for a decrease. A decrease also counts one use. */
export interface TransactionPlan {
  amountDelta: number;
  usageDelta: number;
  countsUse: boolean;
}

export type PlanResult = { plan: TransactionPlan; failure?: undefined } | { failure: FieldError; plan?: undefined };

const refuse = (errorCode: string, field: string, message: Wording): PlanResult => ({ failure: invalid(errorCode, field, message) });

/**
 * What a transaction does to a code, or why it is refused: nothing to change, a change of
 * something the code does not carry, a decrease of a code that is not usable at `at`
 * (status, period, MaxNumberOfUses), or a decrease beyond what remains.
 */
export function planTransaction(code: RebateCodeFacts, request: TransactionRequest, at: Date): PlanResult {
  const amount = roundMoney(request.amount);
  const usage = Math.trunc(request.usage);
  if (amount <= 0 && usage <= 0) {
    return refuse('GreaterThan', 'Amount', (name) => `${name} or ${label('Usage')} must be greater than 0.`);
  }
  if (amount > 0 && code.remainingAmount === null) {
    return refuse('AmountNotApplicable', 'Amount', (name) => `Rebate code '${code.sign}' carries no value (RemainingAmount): ${name} must be 0.`);
  }
  if (usage > 0 && code.remainingUsage === null) {
    return refuse('UsageNotApplicable', 'Usage', (name) => `Rebate code '${code.sign}' carries no uses (RemainingUsage): ${name} must be 0.`);
  }
  if (request.changeType === 'Increase') return { plan: { amountDelta: amount, usageDelta: usage, countsUse: false } };

  const unusable = checkStatus(code) ?? checkPeriod(code, at);
  if (unusable) return { failure: unusable };
  if (code.maxNumberOfUses > 0 && code.numberOfUsesUsed >= code.maxNumberOfUses) {
    return refuse('RebateCodeUsedUp', 'RebateCodeId', `Rebate code '${code.sign}' is used up: its ${code.maxNumberOfUses} uses are used.`);
  }
  if (amount > 0 && amount > (code.remainingAmount ?? 0)) {
    return refuse('InsufficientBalance', 'Amount', `Rebate code '${code.sign}' has ${code.remainingAmount} remaining; cannot decrease by ${amount}.`);
  }
  if (usage > 0 && usage > (code.remainingUsage ?? 0)) {
    return refuse('InsufficientBalance', 'Usage', `Rebate code '${code.sign}' has ${code.remainingUsage} uses remaining; cannot decrease by ${usage}.`);
  }
  return { plan: { amountDelta: -amount, usageDelta: -usage, countsUse: true } };
}

/** The refusal when the conditional UPDATE matched no row and no specific rule explains it. */
export const insufficientBalance = (sign: string): FieldError =>
  invalid('InsufficientBalance', 'RebateCodeId', `Rebate code '${sign}' does not have enough remaining for this decrease.`);
