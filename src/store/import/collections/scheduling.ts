import { collection, flag, insertRows, insertWithId, periodIssue, refsTo, refTo } from '../collection.js';
import { bool, color, dateTime, guid, id, ids, int, list, obj, str, url } from '../fields.js';

/** Resources, their time exceptions and bookings, and resource types. */

export const resources = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Description: str(),
    Active: bool(),
    Color: color(),
    Email: str(),
    ImageUrl: url(),
    MobilePhone: str(),
    AccessGroup: str(),
    EmailNotification: bool(),
    SMSNotification: bool(),
    SendEmailReminder: bool(),
    SendSMSReminder: bool(),
    ResourceCategory: int({ oneOf: [1, 2, 3, 4] }),
    RelayStartsBeforeMinutes: int({ min: 0 }),
    Created: dateTime(),
    Updated: dateTime(),
  },
  keys: (r) => [{ kind: 'resource', key: r.Id, path: ['Id'] }],
  async write(db, items, { now }) {
    await insertRows(db, 'resources', items.map((r) => ({
      id: r.Id,
      company_id: r.CompanyId,
      name: r.Name,
      description: r.Description,
      active: flag(r.Active, 1),
      color: r.Color,
      email: r.Email,
      image_url: r.ImageUrl,
      mobile_phone: r.MobilePhone,
      access_group: r.AccessGroup,
      email_notification: flag(r.EmailNotification, 0),
      sms_notification: flag(r.SMSNotification, 0),
      send_email_reminder: r.SendEmailReminder === null ? null : flag(r.SendEmailReminder, 0),
      send_sms_reminder: r.SendSMSReminder === null ? null : flag(r.SendSMSReminder, 0),
      resource_category: r.ResourceCategory,
      relay_starts_before_minutes: r.RelayStartsBeforeMinutes,
      created: r.Created ?? now,
      updated: r.Updated ?? r.Created ?? now,
    })));
  },
});

export const timeExceptions = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    IsRecurring: bool(),
    IsBlock: bool(),
    ReasonText: str(),
    ReasonTextPublic: str(),
    From: dateTime().req(),
    To: dateTime().req(),
    ResourceIds: ids(),
  },
  keys: (e) => (e.Id === null ? [] : [{ kind: 'timeException', key: e.Id, path: ['Id'] }]),
  refs: (e) => refsTo('resource', e.ResourceIds, 'ResourceIds', e.CompanyId),
  check: (e) => periodIssue(e.From, e.To, 'To', 'From'),
  async write(db, items) {
    for (const e of items) {
      const exceptionId = await insertWithId(db, 'time_exceptions', {
        company_id: e.CompanyId,
        is_recurring: flag(e.IsRecurring, 0),
        is_block: flag(e.IsBlock, 1),
        reason_text: e.ReasonText,
        reason_text_public: e.ReasonTextPublic,
        from: e.From,
        to: e.To,
      }, e.Id);
      await insertRows(db, 'time_exception_resources', (e.ResourceIds ?? []).map((resourceId) => ({
        time_exception_id: exceptionId,
        resource_id: resourceId,
      })));
    }
  },
});

export const bookings = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id().req(),
    ServiceId: id().req(),
    From: dateTime().req(),
    To: dateTime().req(),
    BookedSpots: int({ min: 0 }),
    TotalSpots: int({ min: 0 }),
    PauseAfterInMinutes: int({ min: 0 }),
    StatusId: int({ oneOf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }).req(),
    CustomerId: guid(),
    ResourceIds: ids(),
  },
  keys: (b) => [{ kind: 'booking', key: b.Id, path: ['Id'] }],
  refs: (b) => [
    ...refTo('service', b.ServiceId, 'ServiceId', b.CompanyId),
    ...refTo('customer', b.CustomerId, 'CustomerId', b.CompanyId),
    ...refsTo('resource', b.ResourceIds, 'ResourceIds', b.CompanyId),
  ],
  check: (b) => periodIssue(b.From, b.To, 'To', 'From'),
  async write(db, items) {
    await insertRows(db, 'bookings', items.map((b) => ({
      id: b.Id,
      company_id: b.CompanyId,
      service_id: b.ServiceId,
      from: b.From,
      to: b.To,
      booked_spots: b.BookedSpots ?? 1,
      total_spots: b.TotalSpots ?? 1,
      pause_after_in_minutes: b.PauseAfterInMinutes ?? 0,
      status_id: b.StatusId,
      customer_id: b.CustomerId,
    })));
    await insertRows(db, 'booking_resources', items.flatMap((b) =>
      (b.ResourceIds ?? []).map((resourceId) => ({ booking_id: b.Id, resource_id: resourceId })),
    ));
  },
});

export const resourceTypes = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    Name: str({ nonEmpty: true }).req(),
    Description: str(),
    Active: bool(),
    Resources: list(obj({ Id: id().req(), Priority: int() }), { uniqueBy: (r) => r.Id }),
    Created: dateTime(),
    Updated: dateTime(),
  },
  keys: (t) => (t.Id === null ? [] : [{ kind: 'resourceType', key: t.Id, path: ['Id'] }]),
  refs: (t) => (t.Resources ?? []).map((r, index) => ({
    kind: 'resource' as const,
    key: r.Id,
    path: ['Resources', index, 'Id'],
    company: t.CompanyId,
  })),
  async write(db, items, { now }) {
    for (const t of items) {
      const typeId = await insertWithId(db, 'resource_types', {
        company_id: t.CompanyId,
        name: t.Name,
        description: t.Description,
        active: flag(t.Active, 1),
        created: t.Created ?? now,
        updated: t.Updated ?? t.Created ?? now,
      }, t.Id);
      await insertRows(db, 'resource_type_resources', (t.Resources ?? []).map((r) => ({
        resource_type_id: typeId,
        resource_id: r.Id,
        priority: r.Priority,
      })));
    }
  },
});
