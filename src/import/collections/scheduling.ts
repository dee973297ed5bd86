import { BOOKING_STATUS_NAMES, resourceTypeMemberErrors } from '../../domain/resources.js';
import { collection, columns, entity, flag, insertRows, insertWithId, linkRows, notBefore, refsTo, refTo } from '../collection.js';
import { fromContract, guid, idList, listOf, narrow, nonNegative, object, oneOf, positive } from '../schema.js';
import { COLOR, customer, service } from './people.js';

/** Resources, their time exceptions and bookings, and resource types. */

export const resource = entity({ label: 'resource', table: 'resources', owned: true });
const timeException = entity({ label: 'time exception', table: 'time_exceptions', owned: true });
export const booking = entity({ label: 'booking', table: 'bookings', owned: true });
const resourceType = entity({ label: 'resource type', table: 'resource_types', owned: true });

const resourceFields = fromContract('ResourceQueryResponse', [
  'Id', 'Name', 'Description', 'Active', 'Color', 'Email', 'ImageUrl', 'MobilePhone', 'AccessGroup', 'EmailNotification',
  'SMSNotification', 'SendEmailReminder', 'SendSMSReminder', 'ResourceCategory', 'RelayStartsBeforeMinutes', 'Created', 'Updated',
]);
/** 1 Object, 2 Person, 3 Room, 4 Relay (the contract's description of ResourceCategory). */
const RESOURCE_CATEGORIES = [1, 2, 3, 4];

export const resources = collection({
  entity: resource,
  schema: object(
    {
      CompanyId: guid,
      ...resourceFields,
      Id: positive(resourceFields.Id),
      Color: narrow(resourceFields.Color, COLOR),
      ResourceCategory: oneOf(resourceFields.ResourceCategory, RESOURCE_CATEGORIES),
      RelayStartsBeforeMinutes: nonNegative(resourceFields.RelayStartsBeforeMinutes),
    },
    { required: ['CompanyId', 'Id', 'Name'], filled: ['Name'] },
  ),
  async write(db, items, { now }) {
    await insertRows(db, 'resources', items.map((r) => ({
      ...columns(r, ['Id', 'CompanyId', 'Name', 'Description', 'Color', 'Email', 'ImageUrl', 'MobilePhone']),
      ...columns(r, ['AccessGroup', 'ResourceCategory', 'RelayStartsBeforeMinutes']),
      active: flag(r.Active, 1),
      email_notification: flag(r.EmailNotification, 0),
      sms_notification: flag(r.SMSNotification, 0),
      send_email_reminder: flag(r.SendEmailReminder, null),
      send_sms_reminder: flag(r.SendSMSReminder, null),
      created: r.Created ?? now,
      updated: r.Updated ?? r.Created ?? now,
    })));
  },
});

const exceptionFields = fromContract('TimeException', ['Id', 'IsRecurring', 'IsBlock', 'ReasonText', 'ReasonTextPublic', 'From', 'To']);

export const timeExceptions = collection({
  entity: timeException,
  schema: object(
    { CompanyId: guid, ...exceptionFields, Id: positive(exceptionFields.Id), ResourceIds: idList },
    { required: ['CompanyId', 'From', 'To'] },
  ),
  refs: (e) => refsTo(resource, e.ResourceIds, 'ResourceIds', e.CompanyId),
  check: (e) => notBefore(e, 'From', 'To'),
  async write(db, items) {
    for (const e of items) {
      const row = {
        ...columns(e, ['CompanyId', 'ReasonText', 'ReasonTextPublic', 'From', 'To']),
        is_recurring: flag(e.IsRecurring, 0),
        is_block: flag(e.IsBlock, 1),
      };
      const exceptionId = await insertWithId(db, 'time_exceptions', row, e.Id);
      await insertRows(db, 'time_exception_resources', (e.ResourceIds ?? []).map((resource_id) => ({ time_exception_id: exceptionId, resource_id })));
    }
  },
});

const bookingFields = fromContract('BookedTime', ['Id', 'ServiceId', 'From', 'To', 'BookedSpots', 'TotalSpots', 'PauseAfterInMinutes', 'StatusId']);

export const bookings = collection({
  entity: booking,
  schema: object(
    {
      CompanyId: guid,
      ...bookingFields,
      Id: positive(bookingFields.Id),
      ServiceId: positive(bookingFields.ServiceId),
      BookedSpots: nonNegative(bookingFields.BookedSpots),
      TotalSpots: nonNegative(bookingFields.TotalSpots),
      PauseAfterInMinutes: nonNegative(bookingFields.PauseAfterInMinutes),
      StatusId: oneOf(bookingFields.StatusId, Object.keys(BOOKING_STATUS_NAMES).map(Number)),
      CustomerId: guid,
      ResourceIds: idList,
    },
    { required: ['CompanyId', 'Id', 'ServiceId', 'From', 'To', 'StatusId'] },
  ),
  refs: (b) => [
    ...refTo(service, b.ServiceId, 'ServiceId', b.CompanyId),
    ...refTo(customer, b.CustomerId, 'CustomerId', b.CompanyId),
    ...refsTo(resource, b.ResourceIds, 'ResourceIds', b.CompanyId),
  ],
  check: (b) => notBefore(b, 'From', 'To'),
  async write(db, items) {
    await insertRows(db, 'bookings', items.map((b) => ({
      ...columns(b, ['Id', 'CompanyId', 'ServiceId', 'From', 'To', 'StatusId', 'CustomerId']),
      booked_spots: b.BookedSpots ?? 1,
      total_spots: b.TotalSpots ?? 1,
      pause_after_in_minutes: b.PauseAfterInMinutes ?? 0,
    })));
    await insertRows(db, 'booking_resources', linkRows(items, (b) => b.ResourceIds, (b, resource_id) => ({ booking_id: b.Id, resource_id })));
  },
});

const typeFields = {
  ...fromContract('ResourceTypeQueryResponse', ['Id', 'Created', 'Updated']),
  ...fromContract('CreateResourceType', ['Name', 'Description', 'Active', 'Resources']),
};
const member = object(fromContract('CreateResourceTypeResource', ['Id', 'Priority']), { required: ['Id'] });

export const resourceTypes = collection({
  entity: resourceType,
  schema: object(
    { CompanyId: guid, ...typeFields, Id: positive(typeFields.Id), Resources: narrow(listOf(member), typeFields.Resources.json) },
    { required: ['CompanyId', 'Name'], filled: ['Name'] },
  ),
  refs: (t) => (t.Resources ?? []).flatMap((r, index) => refTo(resource, r.Id, `Resources[${index}].Id`, t.CompanyId)),
  // Whether each resource exists in the company is a reference (file or store); the rule
  // is asked only whether one is listed twice, so it is told every listed id is known.
  check: (t) => resourceTypeMemberErrors(t.Resources ?? [], new Set((t.Resources ?? []).map((r) => r.Id))),
  async write(db, items, { now }) {
    for (const t of items) {
      const row = {
        ...columns(t, ['CompanyId', 'Name', 'Description']),
        active: flag(t.Active, 1),
        created: t.Created ?? now,
        updated: t.Updated ?? t.Created ?? now,
      };
      const typeId = await insertWithId(db, 'resource_types', row, t.Id);
      await insertRows(db, 'resource_type_resources', (t.Resources ?? []).map((r) => ({ resource_type_id: typeId, resource_id: r.Id, priority: r.Priority })));
    }
  },
});
