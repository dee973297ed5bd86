// Enums and integer codes: the contract's values and names, the original's and those of
// docs/decisions.md ("Reference values"), and the server names them alike.

import t from 'tap';
import { REBATE_CODE_STATUSES, REBATE_CODE_TYPES, WEEKDAYS } from '../../src/domain/rebate-codes.js';
import { BOOKING_STATUS_NAMES } from '../../src/domain/resources.js';
import { CODES } from './interface-operations.js';
import { requestInstances, responseInstances } from './notation.js';
import { deref, isRequired } from './shared.js';

t.test('BookingStatusEnum has the original\'s ten values', async (t) => {
  const instances = responseInstances.get('BookedTime') ?? [];
  t.ok(instances.length > 0);
  for (const { where, schema } of instances) {
    const status = deref(schema.properties?.Status);
    t.strictSame(status?.enum, [
      'Booked', 'Unbooked', 'Reserved', 'Canceled', 'AwaitingPayment', 'AwaitingPaymentNoTimeLimit',
      'Payed', 'AwaitingPaymentRequestFromAdmin', 'AwaitingPaymentFromProvider', 'Invoiced',
    ], `${where}.Status`);
    t.equal(deref(schema.properties?.StatusId)?.type, 'integer', `${where}.StatusId carries the numeric value`);
  }
});

t.test('ChangeType has the values Increase and Decrease', async (t) => {
  const schema = requestInstances.get('CreateRebateCodeTransaction')?.[0]?.schema;
  const changeType = deref(schema?.properties?.ChangeType);
  t.strictSame(changeType?.enum, ['Increase', 'Decrease']);
  t.ok(isRequired(schema ?? {}, 'ChangeType'), 'ChangeType is required');
});

t.test('documented integer codes are enums naming each value in x-enum-varnames', async (t) => {
  for (const [code, { fields, names }] of Object.entries(CODES)) {
    for (const [object, field] of fields) {
      const instances = responseInstances.get(object) ?? [];
      t.ok(instances.length > 0, `${object} is reached`);
      for (const { where, schema } of instances) {
        const p = deref(schema.properties?.[field]);
        const values = (p.enum as unknown[] | undefined)?.filter((v) => v !== null);
        t.strictSame(values, Object.keys(names).map(Number), `${where}.${field}: the ${code} values`);
        t.strictSame(p['x-enum-varnames'], Object.values(names), `${where}.${field}: the ${code} names, in the order of enum`);
        t.equal(p.enum.includes(null), p.nullable === true, `${where}.${field}: null is a value exactly when the field is nullable`);
        t.match(p.description, /\S/, `${where}.${field} is described`);
      }
    }
  }
});

t.test('the server names codes as the contract does', async (t) => {
  t.strictSame(REBATE_CODE_TYPES, CODES.RebateCodeTypeId.names);
  t.strictSame(REBATE_CODE_STATUSES, CODES.RebateCodeStatusId.names);
  t.strictSame(Object.fromEntries(WEEKDAYS.map((d) => [d.id, d.english])), CODES.DaysOfWeek.names);
  t.strictSame(BOOKING_STATUS_NAMES, CODES.BookingStatusId.names);
});
