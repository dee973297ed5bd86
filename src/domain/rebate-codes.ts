/**
 * The rules GetRebateCodeBySign checks, free of HTTP and SQL so tests can call them
 * directly. Each rule answers a RuleFailure (ErrorCode, a Message naming the rule, the
 * request field it concerns) or undefined when it holds.
 */
import { activeByStatus, rebateCodeStatusName, WEEKDAYS } from './rebate-code-reference.js';

/** The ISO weekday (1 Monday .. 7 Sunday) of an instant, in UTC. */
export const isoWeekday = (at: Date): number => at.getUTCDay() || 7;

/** `hh:mm:ss` → milliseconds since midnight. */
export function timespanMs(timespan: string): number {
  const [h, m, s] = timespan.split(':').map(Number);
  return ((h * 60 + m) * 60 + s) * 1000;
}

/** The time of day of an instant in UTC, in milliseconds since midnight. */
export const msOfDayUtc = (at: Date): number => at.getTime() - Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());

export interface RuleFailure {
  errorCode: string;
  message: string;
  /** the request field the failure concerns */
  fieldName: string;
}

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

const fail = (errorCode: string, fieldName: string, message: string): RuleFailure => ({ errorCode, message, fieldName });

export function checkStatus(code: RebateCodeFacts): RuleFailure | undefined {
  if (activeByStatus(code.statusId)) return undefined;
  const name = rebateCodeStatusName(code.statusId) ?? String(code.statusId);
  return fail('RebateCodeInactive', 'RebateCodeSign', `Rebate code '${code.sign}' is not active (its status is ${name}).`);
}

/** ValidFrom and ValidTo are both valid instants (the period is inclusive). */
export function checkPeriod(code: RebateCodeFacts, at: Date): RuleFailure | undefined {
  if (at.getTime() < Date.parse(code.validFrom)) {
    return fail('RebateCodeNotYetValid', 'Date', `Rebate code '${code.sign}' is not valid until ${code.validFrom}.`);
  }
  if (at.getTime() > Date.parse(code.validTo)) {
    return fail('RebateCodeExpired', 'Date', `Rebate code '${code.sign}' expired at ${code.validTo}.`);
  }
  return undefined;
}

/**
 * FromTime..ToTime, time of day in UTC, both edges included. A window whose FromTime is
 * after its ToTime runs over midnight (22:00:00..02:00:00); one edge alone bounds one side.
 */
export function checkTimeWindow(code: RebateCodeFacts, at: Date): RuleFailure | undefined {
  if (!code.fromTime && !code.toTime) return undefined;
  const now = msOfDayUtc(at);
  const from = code.fromTime ? timespanMs(code.fromTime) : 0;
  const to = code.toTime ? timespanMs(code.toTime) : 24 * 3600 * 1000;
  const inside = from <= to ? now >= from && now <= to : now >= from || now <= to;
  if (inside) return undefined;
  const window = `${code.fromTime ?? '00:00:00'}..${code.toTime ?? '24:00:00'}`;
  return fail('RebateCodeOutsideTimeWindow', 'Date', `Rebate code '${code.sign}' is only valid between ${window} (UTC).`);
}

export function checkDayOfWeek(code: RebateCodeFacts, at: Date): RuleFailure | undefined {
  if (code.daysOfWeek.length === 0 || code.daysOfWeek.includes(isoWeekday(at))) return undefined;
  const names = WEEKDAYS.filter((d) => code.daysOfWeek.includes(d.id)).map((d) => d.english);
  return fail('RebateCodeInvalidDayOfWeek', 'Date', `Rebate code '${code.sign}' is only valid on ${names.join(', ')}.`);
}

export function checkService(code: RebateCodeFacts, serviceId: number): RuleFailure | undefined {
  if (code.serviceIds.length === 0 || code.serviceIds.includes(serviceId)) return undefined;
  return fail('RebateCodeInvalidService', 'ServiceId', `Rebate code '${code.sign}' is not valid for service ${serviceId}.`);
}

/** MaxNumberOfUses reached, or no value (RemainingAmount) or no uses (RemainingUsage) left. */
export function checkRemaining(code: RebateCodeFacts): RuleFailure | undefined {
  const why =
    code.maxNumberOfUses > 0 && code.numberOfUsesUsed >= code.maxNumberOfUses
      ? `its ${code.maxNumberOfUses} uses are used`
      : code.remainingAmount !== null && code.remainingAmount <= 0
        ? 'no value remains'
        : code.remainingUsage !== null && code.remainingUsage <= 0
          ? 'no uses remain'
          : undefined;
  return why ? fail('RebateCodeUsedUp', 'RebateCodeSign', `Rebate code '${code.sign}' is used up: ${why}.`) : undefined;
}

/** `customerUses`: the customer's Decrease transactions on the code. Without an e-mail there is no one to count. */
export function checkCustomerLimit(code: RebateCodeFacts, customerEmail: string | undefined, customerUses: number): RuleFailure | undefined {
  if (code.maxNumberOfUsesPerCustomer <= 0 || !customerEmail || customerUses < code.maxNumberOfUsesPerCustomer) return undefined;
  return fail(
    'RebateCodeCustomerLimitReached',
    'CustomerEmail',
    `Rebate code '${code.sign}' may be used ${code.maxNumberOfUsesPerCustomer} time(s) per customer; ${customerEmail} has used it ${customerUses} time(s).`,
  );
}

/**
 * A code with connected customers is for them (and the receiver it was bought for)
 * only; e-mails compare case-insensitively.
 */
export function checkCustomerConnected(code: RebateCodeFacts, customerEmail: string | undefined): RuleFailure | undefined {
  if (code.customerEmails.length === 0) return undefined;
  const wanted = customerEmail?.trim().toLowerCase();
  const allowed = code.receiverEmail ? [...code.customerEmails, code.receiverEmail] : code.customerEmails;
  if (wanted && allowed.some((email) => email.trim().toLowerCase() === wanted)) return undefined;
  return fail(
    'RebateCodeCustomerNotConnected',
    'CustomerEmail',
    wanted
      ? `Rebate code '${code.sign}' is not connected to the customer ${customerEmail}.`
      : `Rebate code '${code.sign}' is connected to customers: 'Customer Email' must name one of them.`,
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
export function validityFailures(code: RebateCodeFacts, use: IntendedUse): RuleFailure[] {
  return [
    checkStatus(code),
    checkPeriod(code, use.at),
    checkTimeWindow(code, use.at),
    checkDayOfWeek(code, use.at),
    checkService(code, use.serviceId),
    checkRemaining(code),
    checkCustomerLimit(code, use.customerEmail, use.customerUses),
    checkCustomerConnected(code, use.customerEmail),
  ].filter((failure): failure is RuleFailure => failure !== undefined);
}
