import t from 'tap';
import {
  bookingStatusName,
  NON_BLOCKING_BOOKING_STATUSES,
  resourceDeletion,
  resourceTypeMemberErrors,
} from '../../src/domain/resources.js';

// The plain rules of DeleteResource and CreateResourceType, without HTTP.

t.test('only Unbooked (2) and Canceled (4) bookings do not block deleting a resource', async (t) => {
  // The store's query for a blocking booking looks for a status outside this list.
  t.same(NON_BLOCKING_BOOKING_STATUSES.map(bookingStatusName), ['Unbooked', 'Canceled']);
});

/** The decision for a resource with bookings of these statuses (docs/decisions.md, "Reference values"). */
const decide = (statusIds: number[], force: boolean) => resourceDeletion(statusIds.some((s) => s !== 2 && s !== 4), force);

t.test('a resource without blocking bookings is deleted, Force or not', async (t) => {
  t.equal(decide([], false), 'delete');
  t.equal(decide([2, 4, 4], false), 'delete');
  t.equal(decide([2, 4], true), 'delete', 'Force does not turn a deletion into a deactivation');
});

t.test('blocking bookings refuse the deletion unless Force is set', async (t) => {
  t.equal(decide([4, 1], false), 'conflict');
  t.equal(decide([7], false), 'conflict');
  t.equal(decide([4, 1], true), 'deactivate');
  t.equal(decide([10], true), 'deactivate');
});

t.test('StatusId maps to the BookingStatusEnum name', async (t) => {
  const names = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(bookingStatusName);
  t.same(names, [
    'Booked', 'Unbooked', 'Reserved', 'Canceled', 'AwaitingPayment', 'AwaitingPaymentNoTimeLimit', 'Payed',
    'AwaitingPaymentRequestFromAdmin', 'AwaitingPaymentFromProvider', 'Invoiced',
  ]);
  t.throws(() => bookingStatusName(11), RangeError);
  t.throws(() => bookingStatusName(0), RangeError);
});

t.test('resource type members must be resources of the company', async (t) => {
  const errors = resourceTypeMemberErrors([{ Id: 1 }, { Id: 99 }, { Id: 2 }, { Id: 98 }], new Set([1, 2]));
  t.same(errors, [
    { ErrorCode: 'UnknownResource', FieldName: 'Resources[1].Id', Message: 'Resource 99 is not a resource of the company.' },
    { ErrorCode: 'UnknownResource', FieldName: 'Resources[3].Id', Message: 'Resource 98 is not a resource of the company.' },
  ]);
});

t.test('a resource is listed at most once in a resource type', async (t) => {
  const errors = resourceTypeMemberErrors([{ Id: 1 }, { Id: 2 }, { Id: 1 }, { Id: 1 }], new Set([1, 2]));
  t.same(errors.map((e) => [e.ErrorCode, e.FieldName]), [
    ['DuplicateResource', 'Resources[2].Id'],
    ['DuplicateResource', 'Resources[3].Id'],
  ]);
  t.equal(errors[0].Message, 'Resource 1 is listed more than once.');
});

t.test('an acceptable list (or none) has no errors', async (t) => {
  t.same(resourceTypeMemberErrors([{ Id: 2 }, { Id: 1 }], new Set([1, 2, 3])), []);
  t.same(resourceTypeMemberErrors([], new Set()), []);
});
