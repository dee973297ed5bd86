import t from 'tap';
import {
  conflict,
  displayName,
  invalid,
  label,
  notEmail,
  notEmpty,
  notFound,
  notOfCompany,
  Refusal,
  refuseAny,
  refused,
  tooLong,
} from '../../src/domain/refusals.js';

// The one vocabulary of refusals: field errors in the API's shape, and the kinds of refusal.

t.test('a field is named as ServiceStack names it: words split at capitals', async (t) => {
  t.equal(displayName('RebateCodeSign'), 'Rebate Code Sign');
  t.equal(displayName('SMSReminder'), 'SMS Reminder');
  t.equal(displayName('InvoiceAddress1'), 'Invoice Address1');
});

t.test('a message labels a field path without indices, a parent prefix said once', async (t) => {
  t.equal(label('Name'), "'Name'");
  t.equal(label('EventTypes[3]'), "'Event Types'");
  t.equal(label('Customer.Email'), "'Customer Email'");
  t.equal(label('Receiver.CustomerId'), "'Receiver Customer Id'");
  t.equal(label('Customer.CustomerId'), "'Customer Id'");
});

t.test('the builders write the messages the API has always answered', async (t) => {
  t.same(notEmpty('CompanyId'), { ErrorCode: 'NotEmpty', FieldName: 'CompanyId', Message: "'Company Id' must not be empty." });
  t.equal(notEmpty('Customer.Email', "no 'Customer Id' is given").Message, "'Customer Email' must not be empty when no 'Customer Id' is given.");
  t.same(tooLong('Body', 10, 11), { ErrorCode: 'Length', FieldName: 'Body', Message: "The length of 'Body' must be 10 characters or fewer. You entered 11 characters." });
  t.same(notEmail('Sender'), { ErrorCode: 'Email', FieldName: 'Sender', Message: "'Sender' is not a valid email address." });
  t.same(notOfCompany('InvalidBookingId', 'BookingId', 'a booking'), {
    ErrorCode: 'InvalidBookingId', FieldName: 'BookingId', Message: "'Booking Id' must be a booking of the company.",
  });
  t.equal(invalid('X', 'TypeId', (name) => `${name} 7 is unknown.`).Message, "'Type Id' 7 is unknown.");
  t.equal(invalid('X', 'TypeId', 'As written.').Message, 'As written.');
});

t.test('a validation refusal leads with its first field error and lists them all', async (t) => {
  const errors = [notEmpty('Name'), notEmpty('Title')];
  const refusal = refused(errors);
  t.ok(refusal instanceof Refusal);
  t.match(refusal, { kind: 'validation', errorCode: 'NotEmpty', message: "'Name' must not be empty.", errors });
  t.same(refused(notEmail('Sender')).errors, [notEmail('Sender')], 'one field error alone');
  t.doesNotThrow(() => refuseAny([]), 'no errors, no refusal');
  t.throws(() => refuseAny(errors), refusal);
});

t.test('an unknown target and a forbidding state are refusals without field errors', async (t) => {
  t.match(notFound('Tag not found.'), { kind: 'notFound', errorCode: 'NotFound', message: 'Tag not found.', errors: [] });
  t.match(conflict('Busy.'), { kind: 'conflict', errorCode: 'Conflict', message: 'Busy.', errors: [] });
});
