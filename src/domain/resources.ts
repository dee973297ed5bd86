/**
 * Rules of the resources area (DeleteResource, CreateResourceType), free of HTTP and SQL
 * so tests can call them directly.
 */
import { invalid, type FieldError } from './refusals.js';

/** BookingStatusEnum of the contract: StatusId → Status name. */
export const BOOKING_STATUS_NAMES = {
  1: 'Booked',
  2: 'Unbooked',
  3: 'Reserved',
  4: 'Canceled',
  5: 'AwaitingPayment',
  6: 'AwaitingPaymentNoTimeLimit',
  7: 'Payed',
  8: 'AwaitingPaymentRequestFromAdmin',
  9: 'AwaitingPaymentFromProvider',
  10: 'Invoiced',
} as const;

export type BookingStatusName = (typeof BOOKING_STATUS_NAMES)[keyof typeof BOOKING_STATUS_NAMES];

/** The name of a status id; the store only holds 1..10 (CHECK constraint). */
export function bookingStatusName(statusId: number): BookingStatusName {
  const name = BOOKING_STATUS_NAMES[statusId as keyof typeof BOOKING_STATUS_NAMES];
  if (!name) throw new RangeError(`Unknown booking status ${statusId}`);
  return name;
}

/**
 * docs/decisions.md, "Reference values": Unbooked (2) and Canceled (4) bookings do not block deleting their
 * resource; a booking of any other status does.
 */
export const NON_BLOCKING_BOOKING_STATUSES: readonly number[] = [2, 4];

export type ResourceDeletion = 'delete' | 'deactivate' | 'conflict';

/**
 * What DeleteResource does: delete when no booking blocks it; otherwise keep the resource,
 * deactivated when Force is set, or refuse (409: bookings must first be unbooked).
 * `blocked`: whether any booking of the resource has a status outside
 * NON_BLOCKING_BOOKING_STATUSES; the store answers that with one query that stops at the
 * first such booking.
 */
export function resourceDeletion(blocked: boolean, force: boolean): ResourceDeletion {
  if (!blocked) return 'delete';
  return force ? 'deactivate' : 'conflict';
}

export const BOOKINGS_BLOCK_DELETION =
  'The resource has bookings that must first be unbooked (or canceled) before it can be deleted; ' +
  'use Force=true to deactivate it instead.';

/**
 * CreateResourceType: every listed resource must be one of the company's (`companyIds`,
 * the listed ids that exist in the company) and be listed once. Answers every failure,
 * in list order; an empty answer means the list is acceptable.
 */
export function resourceTypeMemberErrors(
  requested: readonly { Id: number }[],
  companyIds: ReadonlySet<number>,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<number>();
  requested.forEach(({ Id }, index) => {
    const field = `Resources[${index}].Id`;
    if (!companyIds.has(Id)) {
      errors.push(invalid('UnknownResource', field, `Resource ${Id} is not a resource of the company.`));
    } else if (seen.has(Id)) {
      errors.push(invalid('DuplicateResource', field, `Resource ${Id} is listed more than once.`));
    }
    seen.add(Id);
  });
  return errors;
}
