import { BOOKINGS_BLOCK_DELETION, NON_BLOCKING_BOOKING_STATUSES, bookingStatusName, resourceDeletion } from '../domain/resources.js';
import { conflict, notFound } from '../domain/refusals.js';
import { resourcesRepository, type BookingRow, type CustomerRow, type ExceptionRow, type FullResource } from '../store/repositories/resources.js';
import { bool, code, opt, optBool, type Answer } from '../store/prepared.js';
import { toTag } from './tags.js';
import type { HandlersOf, Schemas } from './types.js';

// Row → API mapping of the resources area. `opt` makes SQL nulls absent (the API omits them).

const toException = (row: ExceptionRow) =>
  ({
    Id: row.id,
    IsRecurring: bool(row.is_recurring), IsBlock: bool(row.is_block),
    ReasonText: opt(row.reason_text), ReasonTextPublic: opt(row.reason_text_public),
    From: row.from, To: row.to,
    ResourceIds: row.resource_ids,
  } satisfies Answer<Schemas['TimeException']>);

const toCustomer = (row: CustomerRow) =>
  ({
    Id: row.id, Firstname: opt(row.firstname), Lastname: opt(row.lastname),
    Email: opt(row.email), Phone: opt(row.phone), SocialUserName: opt(row.social_user_name), ImageUrl: opt(row.image_url),
    PersonalIdentityNumber: opt(row.personal_identity_number), CorporateIdentityNumber: opt(row.corporate_identity_number),
    InvoiceAddress1: opt(row.invoice_address1), InvoiceAddress2: opt(row.invoice_address2), InvoiceCity: opt(row.invoice_city),
    InvoicePostalCode: opt(row.invoice_postal_code), InvoiceCountryCode: opt(row.invoice_country_code),
    Tags: row.tags.map(toTag),
  } satisfies Answer<Schemas['BookedCustomer']>);

const toBookedTime = (row: BookingRow) =>
  ({
    Id: row.id,
    ServiceId: row.service_id,
    From: row.from, To: row.to,
    BookedSpots: row.booked_spots, TotalSpots: row.total_spots,
    PauseAfterInMinutes: row.pause_after_in_minutes,
    StatusId: code(row.status_id), Status: bookingStatusName(row.status_id),
    Customer: row.customer && toCustomer(row.customer),
  } satisfies Answer<Schemas['BookedTime']>);

export const toResource = ({ resource: r, exceptions, bookings }: FullResource) =>
  ({
    Id: r.id,
    Name: r.name,
    Description: opt(r.description),
    Active: bool(r.active),
    Color: opt(r.color),
    Email: opt(r.email),
    ImageUrl: opt(r.image_url),
    MobilePhone: opt(r.mobile_phone),
    AccessGroup: opt(r.access_group),
    EmailNotification: bool(r.email_notification),
    SMSNotification: bool(r.sms_notification),
    SendEmailReminder: optBool(r.send_email_reminder),
    SendSMSReminder: optBool(r.send_sms_reminder),
    ResourceCategory: opt(code(r.resource_category)),
    RelayStartsBeforeMinutes: opt(r.relay_starts_before_minutes),
    Exceptions: exceptions.map(toException),
    Bookings: bookings.map(toBookedTime),
    Created: r.created,
    Updated: r.updated,
  } satisfies Answer<Schemas['ResourceQueryResponse']>);

export const resourceHandlers: HandlersOf<'DeleteResource'> = {
  /**
   * Deletes the resource, or (Force) deactivates it when bookings block deletion. One
   * transaction: the read that decides also locks the resource row, and the write checks
   * the decision again, so a booking made meanwhile cannot slip past it, a concurrent
   * delete finds nothing (404), and a refusal writes nothing. When the write finds the
   * decision no longer holds (on PostgreSQL, a booking committed while the read waited for
   * the lock), the second read, under the lock now held, sees every booking.
   */
  async DeleteResource({ params, query, companyId: company, store, announce }) {
    const repo = resourcesRepository(store);
    // Without Force, bookings that block mean 409: decide that first, so a refusal never
    // pays for reading the resource's bookings (bench/results.md: DeleteResource, 409).
    if (query.Force !== true) {
      const blocked = await repo.isBlocked(company, params.Id, NON_BLOCKING_BOOKING_STATUSES);
      if (blocked === undefined) throw notFound('Resource not found.');
      if (blocked) throw conflict(BOOKINGS_BLOCK_DELETION);
    }
    for (let read = 1; read <= 2; read++) {
      const found = await repo.findForDeletion(company, params.Id, NON_BLOCKING_BOOKING_STATUSES);
      if (!found) throw notFound('Resource not found.');
      const outcome = resourceDeletion(found.blocked, query.Force === true);
      if (outcome === 'conflict') throw conflict(BOOKINGS_BLOCK_DELETION);
      if (outcome === 'delete' && (await repo.removeUnlessBlocked(company, params.Id, NON_BLOCKING_BOOKING_STATUSES))) return toResource(found.full);
      if (outcome === 'deactivate') {
        const row = await repo.deactivateIfBlocked(company, params.Id, NON_BLOCKING_BOOKING_STATUSES, new Date().toISOString());
        if (row) {
          announce('resource.deactivated');
          return toResource({ ...found.full, resource: row });
        }
      }
    }
    // Not reached: the second read runs under the row lock, so its decision holds for the write.
    throw new Error(`The bookings of resource ${params.Id} changed while its row was locked.`);
  },
};
