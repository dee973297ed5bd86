import type { Kysely } from 'kysely';
import type { Database, Row } from '../schema.js';
import { transactional } from '../transactions.js';

export type ResourceRow = Row<'resources'>;
export type ExceptionRow = Row<'time_exceptions'> & { resource_ids: number[] };
export type CustomerRow = Row<'customers'> & { tags: Row<'tags'>[] };
export type BookingRow = Row<'bookings'> & { customer?: CustomerRow };
/** A resource with its nested lists, as the Resource object shows it. */
export type FullResource = { resource: ResourceRow; exceptions: ExceptionRow[]; bookings: BookingRow[] };

/**
 * Resources of a company. Takes the Kysely instance (or a transaction) so that a whole
 * operation can run in one transaction through `transaction`.
 */
export function resourcesRepository({ db }: { db: Kysely<Database> }) {
  return transactional(db, resourcesQueries);
}

function resourcesQueries(db: Kysely<Database>) {
  return {
    /** The company's resource row; undefined when the company has no such resource. */
    find(companyId: string, id: number): Promise<ResourceRow | undefined> {
      return db.selectFrom('resources').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
    },

    /** A resource row with its exceptions and bookings, as the Resource object shows it. */
    async withNested(resource: ResourceRow): Promise<FullResource> {
      const [exceptions, bookings] = [await exceptionsOf(db, resource.id), await bookingsOf(db, resource.id)];
      return { resource, exceptions, bookings };
    },

    /**
     * Whether a booking of the resource has a status outside `nonBlocking`: one EXISTS over
     * the (resource_id, booking_id) index that stops at the first such booking, however
     * many bookings the resource has.
     */
    async hasBookingOutside(resourceId: number, nonBlocking: readonly number[]): Promise<boolean> {
      const row = await db
        .selectFrom('booking_resources as l')
        .innerJoin('bookings as b', 'b.id', 'l.booking_id')
        .select('l.booking_id')
        .where('l.resource_id', '=', resourceId)
        .where('b.status_id', 'not in', nonBlocking)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Active = 0, Updated = now; answers the row as it now is. */
    deactivate(companyId: string, id: number, now: string): Promise<ResourceRow> {
      return db
        .updateTable('resources')
        .set({ active: 0, updated: now })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /**
     * Deletes the resource and its links. The schema cascades these, but deleting them
     * explicitly keeps the operation correct where foreign keys are not enforced; the
     * linked bookings and time exceptions themselves are kept (they are company data).
     */
    async remove(companyId: string, id: number): Promise<void> {
      await db.deleteFrom('booking_resources').where('resource_id', '=', id).execute();
      await db.deleteFrom('time_exception_resources').where('resource_id', '=', id).execute();
      await db.deleteFrom('resource_type_resources').where('resource_id', '=', id).execute();
      await db.deleteFrom('resources').where('company_id', '=', companyId).where('id', '=', id).execute();
    },
  };
}

/** Groups rows by a key (for attaching a nested list loaded in one query). */
function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/**
 * The resource's time exceptions, each with all its owning resources: two queries. The
 * nested lists are selected by subquery, so no id list (and no parameter limit) is involved.
 */
async function exceptionsOf(db: Kysely<Database>, resourceId: number): Promise<ExceptionRow[]> {
  const ownIds = db.selectFrom('time_exception_resources').select('time_exception_id').where('resource_id', '=', resourceId);
  const rows = await db
    .selectFrom('time_exceptions')
    .selectAll()
    .where('id', 'in', ownIds)
    .orderBy('from')
    .orderBy('id')
    .execute();
  if (rows.length === 0) return [];
  const links = await db
    .selectFrom('time_exception_resources')
    .selectAll()
    .where('time_exception_id', 'in', ownIds)
    .orderBy('resource_id')
    .execute();
  const byException = groupBy(links, (l) => l.time_exception_id);
  return rows.map((row) => ({ ...row, resource_ids: (byException.get(row.id) ?? []).map((l) => l.resource_id) }));
}

/** The resource's bookings with their customers and the customers' tags: three queries. */
async function bookingsOf(db: Kysely<Database>, resourceId: number): Promise<BookingRow[]> {
  const rows = await db
    .selectFrom('bookings as b')
    .innerJoin('booking_resources as l', 'l.booking_id', 'b.id')
    .selectAll('b')
    .where('l.resource_id', '=', resourceId)
    .orderBy('b.from')
    .orderBy('b.id')
    .execute();
  if (!rows.some((r) => r.customer_id)) return rows;
  const customerIds = db
    .selectFrom('bookings as b')
    .innerJoin('booking_resources as l', 'l.booking_id', 'b.id')
    .select('b.customer_id')
    .where('l.resource_id', '=', resourceId)
    .where('b.customer_id', 'is not', null);
  const customers = await db.selectFrom('customers').selectAll().where('id', 'in', customerIds).execute();
  const tags = await db
    .selectFrom('customer_tags as ct')
    .innerJoin('tags as t', 't.id', 'ct.tag_id')
    .selectAll('t')
    .select('ct.customer_id')
    .where('ct.customer_id', 'in', customerIds)
    .orderBy('t.sort_order')
    .orderBy('t.id')
    .execute();
  const tagsOf = groupBy(tags, (t) => t.customer_id);
  const byId = new Map(
    customers.map((c) => [c.id, { ...c, tags: (tagsOf.get(c.id) ?? []).map(({ customer_id: _, ...tag }) => tag) }]),
  );
  return rows.map((row) => ({ ...row, customer: row.customer_id ? byId.get(row.customer_id) : undefined }));
}
