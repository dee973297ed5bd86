import { sql, type Kysely } from 'kysely';
import { jsonHelpers, jsonList, parseJson } from '../json.js';
import { lockRows } from '../locks.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database, Row } from '../schema.js';

export type ResourceRow = Row<'resources'>;
export type TagRow = Row<'tags'>;
export type ExceptionRow = Omit<Row<'time_exceptions'>, 'company_id'> & { resource_ids: number[] };
export type CustomerRow = Omit<Row<'customers'>, 'company_id' | 'comments' | 'created' | 'subscribed_to_newsletter'> & { tags: TagRow[] };
export type BookingRow = Omit<Row<'bookings'>, 'company_id'> & { customer?: CustomerRow };
/** A resource with its nested lists, as the Resource object shows it. */
export type FullResource = { resource: ResourceRow; exceptions: ExceptionRow[]; bookings: BookingRow[] };

// The nested rows are read as JSON columns, and SQLite's json_object cannot take `*`: the
// columns the Resource object shows are named.
const EXCEPTION_COLUMNS = ['e.id', 'e.is_recurring', 'e.is_block', 'e.reason_text', 'e.reason_text_public', 'e.from', 'e.to'] as const;
const BOOKING_COLUMNS = [
  'b.id', 'b.service_id', 'b.from', 'b.to', 'b.booked_spots', 'b.total_spots', 'b.pause_after_in_minutes', 'b.status_id', 'b.customer_id',
] as const;
const CUSTOMER_COLUMNS = [
  'c.id', 'c.firstname', 'c.lastname', 'c.email', 'c.phone', 'c.social_user_name', 'c.image_url', 'c.personal_identity_number',
  'c.corporate_identity_number', 'c.invoice_address1', 'c.invoice_address2', 'c.invoice_city', 'c.invoice_postal_code', 'c.invoice_country_code',
] as const;
const TAG_COLUMNS = ['t.id', 't.company_id', 't.name', 't.scope', 't.color', 't.sort_order', 't.active', 't.created_date'] as const;

/** The values of the queries on one resource. */
interface ResourceValues {
  companyId: string;
  id: number;
  /** JSON of the booking statuses that do not block deleting the resource (jsonList) */
  nonBlockingJson: string;
}

/** The bookings of the resource whose status is outside `nonBlocking` (an EXISTS over the (resource_id, booking_id) index stops at the first). */
const blockingBookings = (db: Kysely<Database>, p: Placeholders<ResourceValues>) =>
  db
    .selectFrom('booking_resources as l')
    .innerJoin('bookings as b', 'b.id', 'l.booking_id')
    .select('l.booking_id')
    .where('l.resource_id', '=', p.id)
    .where(sql<boolean>`${sql.ref('b.status_id')} not in (${jsonList(db, p.nonBlockingJson, 'integer')})`);

/** Whether bookings block deleting the company's resource, locking its row (see findForDeletion). */
const isBlockedQuery = prepared((db, p: Placeholders<ResourceValues>) =>
  db
    .selectFrom('resources as r')
    .select((eb) => eb.exists(blockingBookings(db, p)).as('blocked'))
    .where('r.company_id', '=', p.companyId)
    .where('r.id', '=', p.id)
    .$call(lockRows(db, 'update')),
);

/** The resource with every list the Resource object shows and whether bookings block deleting it, locking its row. */
const forDeletionQuery = prepared((db, p: Placeholders<ResourceValues>) => {
  const json = jsonHelpers(db);
  /** The ids of the resource's bookings, of their customers and of its time exceptions (subqueries the lists below share). */
  const bookingIds = () => db.selectFrom('booking_resources').select('booking_id').where('resource_id', '=', p.id);
  const customerIds = () => db.selectFrom('bookings').select('customer_id').where('id', 'in', bookingIds()).where('customer_id', 'is not', null);
  const exceptionIds = () => db.selectFrom('time_exception_resources').select('time_exception_id').where('resource_id', '=', p.id);
  return db
    .selectFrom('resources as r')
    .selectAll('r')
    .select((eb) => [
      eb.exists(blockingBookings(db, p)).as('blocked'),
      json.array(db.selectFrom('time_exceptions as e').select(EXCEPTION_COLUMNS).where('e.id', 'in', exceptionIds()).orderBy('e.from').orderBy('e.id')).as('exceptions_json'),
      json.array(
        db.selectFrom('time_exception_resources as x').select(['x.time_exception_id', 'x.resource_id'])
          .where('x.time_exception_id', 'in', exceptionIds()).orderBy('x.resource_id'),
      ).as('exception_links_json'),
      json.array(db.selectFrom('bookings as b').select(BOOKING_COLUMNS).where('b.id', 'in', bookingIds()).orderBy('b.from').orderBy('b.id')).as('bookings_json'),
      json.array(db.selectFrom('customers as c').select(CUSTOMER_COLUMNS).where('c.id', 'in', customerIds())).as('customers_json'),
      json.array(
        db.selectFrom('customer_tags as ct').innerJoin('tags as t', 't.id', 'ct.tag_id').select(TAG_COLUMNS).select('ct.customer_id')
          .where('ct.customer_id', 'in', customerIds()).orderBy('t.sort_order').orderBy('t.id'),
      ).as('tags_json'),
    ])
    .where('r.company_id', '=', p.companyId)
    .where('r.id', '=', p.id)
    .$call(lockRows(db, 'update'));
});

/** Deletes the resource unless bookings block it (checked in this statement). */
const removeUnlessBlockedQuery = prepared((db, p: Placeholders<ResourceValues>) =>
  db
    .deleteFrom('resources')
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id)
    .where((eb) => eb.not(eb.exists(blockingBookings(db, p))))
    .returning('id'),
);

/** Deactivates the resource if bookings still block deleting it (checked in this statement). */
const deactivateIfBlockedQuery = prepared((db, p: Placeholders<ResourceValues & { now: string }>) =>
  db
    .updateTable('resources')
    .set({ active: 0, updated: p.now })
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id)
    .where((eb) => eb.exists(blockingBookings(db, p)))
    .returningAll(),
);

/**
 * Resources of a company. Takes a Store or a transaction (`{ db: trx }`), so that a whole
 * operation can run in one transaction (inTransaction).
 */
export function resourcesRepository({ db }: { db: Kysely<Database> }) {
  const values = (companyId: string, id: number, nonBlocking: readonly number[]): ResourceValues => ({
    companyId,
    id,
    nonBlockingJson: JSON.stringify(nonBlocking),
  });

  return {
    /** Whether bookings block deleting the company's resource (locked like findForDeletion); undefined when there is none. */
    async isBlocked(companyId: string, id: number, nonBlocking: readonly number[]): Promise<boolean | undefined> {
      const row = await isBlockedQuery.takeFirst(db, values(companyId, id, nonBlocking));
      return row === undefined ? undefined : Boolean(row.blocked);
    },

    /**
     * The company's resource with every list the Resource object shows, and whether a
     * booking outside `nonBlocking` blocks deleting it: one statement, which locks the row
     * for the write that follows (store/locks.ts). Undefined when the company has no such
     * resource (or it was deleted while this waited for the lock).
     */
    async findForDeletion(companyId: string, id: number, nonBlocking: readonly number[]): Promise<{ full: FullResource; blocked: boolean } | undefined> {
      const row = await forDeletionQuery.takeFirst(db, values(companyId, id, nonBlocking));
      if (!row) return undefined;
      const { blocked, exceptions_json, exception_links_json, bookings_json, customers_json, tags_json, ...resource } = row;
      const links = groupBy(parseJson(exception_links_json), (link) => link.time_exception_id);
      const tags = groupBy(parseJson(tags_json), (tag) => tag.customer_id);
      const customers = new Map(
        parseJson(customers_json).map((c) => [c.id, { ...c, tags: (tags.get(c.id) ?? []).map(({ customer_id: _, ...tag }) => tag) }]),
      );
      const full: FullResource = {
        resource,
        exceptions: parseJson(exceptions_json).map((e) => ({ ...e, resource_ids: (links.get(e.id) ?? []).map((l) => l.resource_id) })),
        bookings: parseJson(bookings_json).map((b) => ({ ...b, customer: b.customer_id ? customers.get(b.customer_id) : undefined })),
      };
      // EXISTS is a boolean on PostgreSQL, 0/1 on SQLite.
      return { full, blocked: Boolean(blocked) };
    },

    /**
     * Deletes the resource unless a booking outside `nonBlocking` blocks it, checked again
     * in this statement; answers whether it was deleted. The schema cascades the deletion
     * to its links (bookings', time exceptions' and resource types'), enforced on both
     * engines; the bookings and time exceptions themselves are kept (company data).
     */
    async removeUnlessBlocked(companyId: string, id: number, nonBlocking: readonly number[]): Promise<boolean> {
      const row = await removeUnlessBlockedQuery.takeFirst(db, values(companyId, id, nonBlocking));
      return row !== undefined;
    },

    /** Active = 0, Updated = now, if a booking outside `nonBlocking` still blocks deletion (checked in this statement); answers the row as it now is. */
    deactivateIfBlocked(companyId: string, id: number, nonBlocking: readonly number[], now: string): Promise<ResourceRow | undefined> {
      return deactivateIfBlockedQuery.takeFirst(db, { ...values(companyId, id, nonBlocking), now });
    },
  };
}

/** Groups rows by a key (for attaching a nested list read as one JSON column). */
function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}
