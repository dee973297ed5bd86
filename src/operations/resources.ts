import { BOOKINGS_BLOCK_DELETION, NON_BLOCKING_BOOKING_STATUSES, bookingStatusName, resourceDeletion } from '../domain/resources.js';
import { conflict, notFound } from '../domain/refusals.js';
import {
  resourcesRepository,
  type BookingRow,
  type CustomerRow,
  type ExceptionRow,
  type FullResource,
} from '../store/repositories/resources.js';
import { bool, code, compact, optBool } from '../store/rows.js';
import { toTag } from './tags.js';
import type { HandlersOf, Schemas } from './types.js';

// Row → API mapping of the resources area. `compact` drops SQL nulls (the API omits them).

const toException = (row: ExceptionRow) =>
  compact<Schemas['TimeException']>({
    Id: row.id,
    IsRecurring: bool(row.is_recurring), IsBlock: bool(row.is_block),
    ReasonText: row.reason_text, ReasonTextPublic: row.reason_text_public,
    From: row.from, To: row.to,
    ResourceIds: row.resource_ids,
  });

const toCustomer = (row: CustomerRow) =>
  compact<Schemas['BookedCustomer']>({
    Id: row.id, Firstname: row.firstname, Lastname: row.lastname,
    Email: row.email, Phone: row.phone, SocialUserName: row.social_user_name, ImageUrl: row.image_url,
    PersonalIdentityNumber: row.personal_identity_number, CorporateIdentityNumber: row.corporate_identity_number,
    InvoiceAddress1: row.invoice_address1, InvoiceAddress2: row.invoice_address2, InvoiceCity: row.invoice_city,
    InvoicePostalCode: row.invoice_postal_code, InvoiceCountryCode: row.invoice_country_code,
    Tags: row.tags.map(toTag),
  });

const toBookedTime = (row: BookingRow) =>
  compact<Schemas['BookedTime']>({
    Id: row.id,
    ServiceId: row.service_id,
    From: row.from, To: row.to,
    BookedSpots: row.booked_spots, TotalSpots: row.total_spots,
    PauseAfterInMinutes: row.pause_after_in_minutes,
    StatusId: code(row.status_id), Status: bookingStatusName(row.status_id),
    Customer: row.customer && toCustomer(row.customer),
  });

export const toResource = ({ resource: r, exceptions, bookings }: FullResource) =>
  compact<Schemas['ResourceQueryResponse']>({
    Id: r.id,
    Name: r.name,
    Description: r.description,
    Active: bool(r.active),
    Color: r.color,
    Email: r.email,
    ImageUrl: r.image_url,
    MobilePhone: r.mobile_phone,
    AccessGroup: r.access_group,
    EmailNotification: bool(r.email_notification),
    SMSNotification: bool(r.sms_notification),
    SendEmailReminder: optBool(r.send_email_reminder),
    SendSMSReminder: optBool(r.send_sms_reminder),
    ResourceCategory: code(r.resource_category),
    RelayStartsBeforeMinutes: r.relay_starts_before_minutes,
    Exceptions: exceptions.map(toException),
    Bookings: bookings.map(toBookedTime),
    Created: r.created,
    Updated: r.updated,
  });

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
    const full = await resourcesRepository(store).transaction(async (repo) => {
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
        if (outcome === 'delete' && (await repo.removeUnlessBlocked(company, params.Id, NON_BLOCKING_BOOKING_STATUSES))) return found.full;
        if (outcome === 'deactivate') {
          const row = await repo.deactivateIfBlocked(company, params.Id, NON_BLOCKING_BOOKING_STATUSES, new Date().toISOString());
          if (row) {
            announce('resource.deactivated');
            return { ...found.full, resource: row };
          }
        }
      }
      // Not reached: the second read runs under the row lock, so its decision holds for the write.
      throw new Error(`The bookings of resource ${params.Id} changed while its row was locked.`);
    });
    return toResource(full);
  },
};
