import { invalid, label, type FieldError, type Wording } from './refusals.js';

/**
 * The rules GetRebateCodeBySign checks, free of HTTP and SQL so tests can call them
 * directly. Each rule answers a FieldError (ErrorCode, a Message naming the rule, the
 * request field it concerns) or undefined when it holds.
 */

/** The ISO weekday (1 Monday .. 7 Sunday) of an instant, in UTC. */
export const isoWeekday = (at: Date): number => at.getUTCDay() || 7;

/** `hh:mm:ss` → milliseconds since midnight. */
export function timespanMs(timespan: string): number {
  const [h, m, s] = timespan.split(':').map(Number);
  return ((h * 60 + m) * 60 + s) * 1000;
}

/** The time of day of an instant in UTC, in milliseconds since midnight. */
export const msOfDayUtc = (at: Date): number => at.getTime() - Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());

/** What the rules need to know about a code. Dates are ISO strings, as stored. */
export interface RebateCodeFacts {
  sign: string;
  statusId: number;
  validFrom: string;
  validTo: string;
  fromTime?: string | null;
  toTime?: string | null;
  /** connected weekdays (none: every day) */
  daysOfWeek: readonly number[];
  /** connected services (none: every service) */
  serviceIds: readonly number[];
  /** 0 = unlimited */
  maxNumberOfUses: number;
  numberOfUsesUsed: number;
  remainingAmount: number | null;
  remainingUsage: number | null;
  /** 0 = unlimited */
  maxNumberOfUsesPerCustomer: number;
  /** e-mails of the connected customers (none: anyone may use the code) */
  customerEmails: readonly string[];
  /** e-mail of the receiver named when the code was bought; may use the code too */
  receiverEmail?: string;
}

export function checkStatus(code: RebateCodeFacts): FieldError | undefined {
  if (activeByStatus(code.statusId)) return undefined;
  const name = rebateCodeStatusName(code.statusId) ?? String(code.statusId);
  return invalid('RebateCodeInactive', 'RebateCodeSign', `Rebate code '${code.sign}' is not active (its status is ${name}).`);
}

/** ValidFrom and ValidTo are both valid instants (the period is inclusive). */
export function checkPeriod(code: RebateCodeFacts, at: Date): FieldError | undefined {
  if (at.getTime() < Date.parse(code.validFrom)) {
    return invalid('RebateCodeNotYetValid', 'Date', `Rebate code '${code.sign}' is not valid until ${code.validFrom}.`);
  }
  if (at.getTime() > Date.parse(code.validTo)) {
    return invalid('RebateCodeExpired', 'Date', `Rebate code '${code.sign}' expired at ${code.validTo}.`);
  }
  return undefined;
}

/**
 * FromTime..ToTime, time of day in UTC, both edges included. A window whose FromTime is
 * after its ToTime runs over midnight (22:00:00..02:00:00); one edge alone bounds one side.
 */
export function checkTimeWindow(code: RebateCodeFacts, at: Date): FieldError | undefined {
  if (!code.fromTime && !code.toTime) return undefined;
  const now = msOfDayUtc(at);
  const from = code.fromTime ? timespanMs(code.fromTime) : 0;
  const to = code.toTime ? timespanMs(code.toTime) : 24 * 3600 * 1000;
  const inside = from <= to ? now >= from && now <= to : now >= from || now <= to;
  if (inside) return undefined;
  const window = `${code.fromTime ?? '00:00:00'}..${code.toTime ?? '24:00:00'}`;
  return invalid('RebateCodeOutsideTimeWindow', 'Date', `Rebate code '${code.sign}' is only valid between ${window} (UTC).`);
}

export function checkDayOfWeek(code: RebateCodeFacts, at: Date): FieldError | undefined {
  if (code.daysOfWeek.length === 0 || code.daysOfWeek.includes(isoWeekday(at))) return undefined;
  const names = WEEKDAYS.filter((d) => code.daysOfWeek.includes(d.id)).map((d) => d.english);
  return invalid('RebateCodeInvalidDayOfWeek', 'Date', `Rebate code '${code.sign}' is only valid on ${names.join(', ')}.`);
}

export function checkService(code: RebateCodeFacts, serviceId: number): FieldError | undefined {
  if (code.serviceIds.length === 0 || code.serviceIds.includes(serviceId)) return undefined;
  return invalid('RebateCodeInvalidService', 'ServiceId', `Rebate code '${code.sign}' is not valid for service ${serviceId}.`);
}

/** MaxNumberOfUses reached, or no value (RemainingAmount) or no uses (RemainingUsage) left. */
export function checkRemaining(code: RebateCodeFacts): FieldError | undefined {
  const why =
    code.maxNumberOfUses > 0 && code.numberOfUsesUsed >= code.maxNumberOfUses
      ? `its ${code.maxNumberOfUses} uses are used`
      : code.remainingAmount !== null && code.remainingAmount <= 0
        ? 'no value remains'
        : code.remainingUsage !== null && code.remainingUsage <= 0
          ? 'no uses remain'
          : undefined;
  return why ? invalid('RebateCodeUsedUp', 'RebateCodeSign', `Rebate code '${code.sign}' is used up: ${why}.`) : undefined;
}

/** `customerUses`: the customer's Decrease transactions on the code. Without an e-mail there is no one to count. */
export function checkCustomerLimit(code: RebateCodeFacts, customerEmail: string | undefined, customerUses: number): FieldError | undefined {
  if (code.maxNumberOfUsesPerCustomer <= 0 || !customerEmail || customerUses < code.maxNumberOfUsesPerCustomer) return undefined;
  return invalid(
    'RebateCodeCustomerLimitReached',
    'CustomerEmail',
    `Rebate code '${code.sign}' may be used ${code.maxNumberOfUsesPerCustomer} time(s) per customer; ${customerEmail} has used it ${customerUses} time(s).`,
  );
}

/**
 * A code with connected customers is for them (and the receiver it was bought for)
 * only; e-mails compare case-insensitively.
 */
export function checkCustomerConnected(code: RebateCodeFacts, customerEmail: string | undefined): FieldError | undefined {
  if (code.customerEmails.length === 0) return undefined;
  const wanted = customerEmail?.trim().toLowerCase();
  const allowed = code.receiverEmail ? [...code.customerEmails, code.receiverEmail] : code.customerEmails;
  if (wanted && allowed.some((email) => email.trim().toLowerCase() === wanted)) return undefined;
  return invalid(
    'RebateCodeCustomerNotConnected',
    'CustomerEmail',
    wanted
      ? `Rebate code '${code.sign}' is not connected to the customer ${customerEmail}.`
      : `Rebate code '${code.sign}' is connected to customers: ${label('CustomerEmail')} must name one of them.`,
  );
}

export interface IntendedUse {
  at: Date;
  serviceId: number;
  customerEmail?: string;
  /** the customer's Decrease transactions on the code so far */
  customerUses: number;
}

/** Every rule that fails, in the order the contract lists them (the first is the answer's ErrorCode). */
export function validityFailures(code: RebateCodeFacts, use: IntendedUse): FieldError[] {
  return [
    checkStatus(code),
    checkPeriod(code, use.at),
    checkTimeWindow(code, use.at),
    checkDayOfWeek(code, use.at),
    checkService(code, use.serviceId),
    checkRemaining(code),
    checkCustomerLimit(code, use.customerEmail, use.customerUses),
    checkCustomerConnected(code, use.customerEmail),
  ].filter((failure): failure is FieldError => failure !== undefined);
}

/** Reference values of rebate codes (docs/decisions.md, "Reference values"). */

export const REBATE_CODE_TYPES = { 1: 'Percent', 2: 'Currency', 3: 'PunchTicket', 4: 'ValueCard', 5: 'GiftCard' } as const;
export const REBATE_CODE_STATUSES = { 1: 'Active', 2: 'Inactive', 3: 'Expired' } as const;
export const ACTIVE = 1;

export const rebateCodeTypeName = (typeId: number): string | undefined =>
  REBATE_CODE_TYPES[typeId as keyof typeof REBATE_CODE_TYPES];
export const rebateCodeStatusName = (statusId: number): string | undefined =>
  REBATE_CODE_STATUSES[statusId as keyof typeof REBATE_CODE_STATUSES];
/** ActiveByStatus: true for status 1 (Active) only. */
export const activeByStatus = (statusId: number): boolean => statusId === ACTIVE;

/** DaysOfWeek ids 1 Monday .. 7 Sunday, with the English and Swedish names. */
export const WEEKDAYS = [
  { id: 1, english: 'Monday', swedish: 'Måndag' },
  { id: 2, english: 'Tuesday', swedish: 'Tisdag' },
  { id: 3, english: 'Wednesday', swedish: 'Onsdag' },
  { id: 4, english: 'Thursday', swedish: 'Torsdag' },
  { id: 5, english: 'Friday', swedish: 'Fredag' },
  { id: 6, english: 'Saturday', swedish: 'Lördag' },
  { id: 7, english: 'Sunday', swedish: 'Söndag' },
] as const;

/**
 * The arithmetic of CreateRebateCodeTransaction, free of HTTP and SQL. The store applies
 * a plan with one conditional UPDATE (so concurrent decreases never overspend); these
 * functions decide what the plan is and why a request is refused.
 */

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
