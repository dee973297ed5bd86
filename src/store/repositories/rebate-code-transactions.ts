import { sql, type Kysely, type QueryCreator } from 'kysely';
import { jsonHelpers, parseJson } from '../json.js';
import { isPostgres } from '../migrations/helpers.js';
import type { Database, NewRow, Row } from '../schema.js';
import { inTransaction, statementWithRetries } from '../transactions.js';
import type { RebateCodeRow } from './rebate-codes.js';

/** The service and customer of a transaction, as its view shows them (joined as `s` and `c`). */
const JOINED_VIEW_COLUMNS = [
  's.name as service_name', 's.description as service_description', 's.active as service_active',
  'c.firstname as customer_firstname', 'c.lastname as customer_lastname', 'c.email as customer_email',
  'c.phone as customer_phone', 'c.image_url as customer_image_url',
] as const;

/**
 * A transaction as RebateCodeTransactionQueryResponse shows it: with its code's sign, type
 * and price sign, its service and its customer (joined, so a list is one query). Columns
 * named, so the view can also be read as JSON.
 */
export function transactionViews(db: Kysely<Database>) {
  return db
    .selectFrom('rebate_code_transactions as t')
    .innerJoin('rebate_codes as tr', 'tr.id', 't.rebate_code_id')
    .leftJoin('services as s', 's.id', 't.service_id')
    .leftJoin('customers as c', 'c.id', 't.customer_id')
    .select([
      't.id', 't.company_id', 't.rebate_code_id', 't.amount', 't.usage', 't.booking_id', 't.note', 't.customer_id',
      't.service_id', 't.created_date', 't.updated_date', 'tr.sign as code_sign', 'tr.type_id as code_type_id',
      'tr.price_sign as code_price_sign',
    ])
    .select(JOINED_VIEW_COLUMNS);
}

export type TransactionView = Awaited<ReturnType<ReturnType<typeof transactionViews>['executeTakeFirstOrThrow']>>;
type Joined = Pick<TransactionView, 'service_name' | 'service_description' | 'service_active' | 'customer_firstname' | 'customer_lastname' | 'customer_email' | 'customer_phone' | 'customer_image_url'>;
/** A booking as a transaction records it: its id, customer and service, with the view's service and customer parts. */
export type BookingView = Pick<TransactionView, 'booking_id' | 'customer_id' | 'service_id'> & Joined;
/** A transaction without a booking has no service or customer: the view's parts are null, as the left joins answer. */
const NOT_JOINED: Joined = {
  service_name: null, service_description: null, service_active: null,
  customer_firstname: null, customer_lastname: null, customer_email: null, customer_phone: null, customer_image_url: null,
};

/** The signed change one transaction applies (see domain/rebate-code-transactions.ts). */
export interface CodeChange {
  companyId: string;
  codeId: number;
  amountDelta: number;
  usageDelta: number;
  /** a Decrease: counts one use, and only applies to a usable code */
  countsUse: boolean;
  at: string;
  by: string | null;
}

/** Transactions on rebate codes. */
export function rebateCodeTransactionsRepository({ db }: { db: Kysely<Database> }) {
  const json = jsonHelpers(db);
  return {
    /**
     * The company's code, and with `bookingId` the company's booking (its customer and
     * service, as the transaction will show them), in one statement.
     */
    async findCode(companyId: string, codeId: number, bookingId: number | undefined) {
      const booking = db
        .selectFrom('bookings as b')
        .leftJoin('services as s', 's.id', 'b.service_id')
        .leftJoin('customers as c', 'c.id', 'b.customer_id')
        .select(['b.id as booking_id', 'b.customer_id', 'b.service_id'])
        .select(JOINED_VIEW_COLUMNS)
        .where('b.company_id', '=', companyId)
        .where('b.id', '=', bookingId ?? 0);
      const row = await db
        .selectFrom('rebate_codes as r')
        .selectAll('r')
        .$if(bookingId !== undefined, (q) => q.select(json.object(booking).as('booking_json')))
        .where('r.company_id', '=', companyId)
        .where('r.id', '=', codeId)
        .executeTakeFirst();
      if (!row) return undefined;
      const { booking_json, ...code } = row;
      return { code, booking: (booking_json && parseJson(booking_json)) ?? undefined };
    },

    /**
     * Applies `change` and records `row` for it, atomically, and answers the recorded row;
     * undefined when the conditional UPDATE matched no row (refused). Both run again whole
     * when the database gives up on them (serialization failure; transactions.ts).
     *
     * Written per engine because the engines differ: PostgreSQL runs it as ONE statement,
     * the UPDATE a data-modifying CTE that the INSERT selects from (atomic by itself: one
     * round trip, no BEGIN and COMMIT). SQLite has no data-modifying CTEs: there the two
     * statements run in one transaction, as calls in this process rather than round trips.
     */
    async record(change: CodeChange, row: NewRow<'rebate_code_transactions'>): Promise<Row<'rebate_code_transactions'> | undefined> {
      if (!isPostgres(db)) {
        return inTransaction({ db }, async ({ db: trx }) => {
          const { numUpdatedRows } = await applyChange(trx, change).executeTakeFirst();
          if (Number(numUpdatedRows) !== 1) return undefined;
          return trx.insertInto('rebate_code_transactions').values(row).returningAll().executeTakeFirstOrThrow();
        });
      }
      const columns = Object.keys(row) as Array<keyof typeof row>;
      // PostgreSQL types the parameters from the columns they are inserted into.
      return statementWithRetries(db, () =>
        db
          .with('applied', (creator) => applyChange(creator, change).returning('id'))
          .insertInto('rebate_code_transactions')
          .columns(columns)
          .expression((eb) => eb.selectFrom('applied').select(columns.map((column) => sql.val(row[column]).as(column))))
          .returningAll()
          .executeTakeFirst(),
      );
    },
  };
}

/**
 * A transaction of `code` as its view shows it (with `booking`, as findCode read it), from
 * the row `record` returns and what was read before: no read-back.
 */
export function transactionView(stored: Row<'rebate_code_transactions'>, code: RebateCodeRow, booking?: BookingView): TransactionView {
  return { ...stored, code_sign: code.sign, code_type_id: code.type_id, code_price_sign: code.price_sign, ...NOT_JOINED, ...booking };
}

/**
 * A change as ONE conditional UPDATE: a decrease only matches while enough remains (and
 * the code is active, in its period and below MaxNumberOfUses), so concurrent decreases
 * can never overspend. Money is rounded to 2 decimals in SQL (cast to numeric:
 * PostgreSQL's round(x, n) takes numeric) so repeated changes never drift.
 */
function applyChange(db: QueryCreator<Database>, change: CodeChange) {
  const { amountDelta, usageDelta } = change;
  let update = db
    .updateTable('rebate_codes')
    .set({ updated: change.at, updated_by: change.by })
    .where('id', '=', change.codeId)
    .where('company_id', '=', change.companyId);
  if (amountDelta !== 0) {
    update = update.set({ remaining_amount: sql<number>`round(cast(remaining_amount + ${amountDelta} as numeric), 2)` });
    if (amountDelta < 0) update = update.where('remaining_amount', '>=', -amountDelta);
  }
  if (usageDelta !== 0) {
    update = update.set({ remaining_usage: sql<number>`remaining_usage + ${usageDelta}` });
    if (usageDelta < 0) update = update.where('remaining_usage', '>=', -usageDelta);
  }
  if (change.countsUse) {
    update = update
      .set({ number_of_uses_used: sql<number>`number_of_uses_used + 1` })
      .where('status_id', '=', 1)
      .where('valid_from', '<=', change.at)
      .where('valid_to', '>=', change.at)
      .where((eb) => eb.or([eb('max_number_of_uses', '=', 0), eb('number_of_uses_used', '<', eb.ref('max_number_of_uses'))]));
  }
  return update;
}
