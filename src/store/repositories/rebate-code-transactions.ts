import { sql, type Kysely, type QueryCreator } from 'kysely';
import { jsonHelpers, parseJson, type Json } from '../json.js';
import { isPostgres, statementWithRetries } from '../statements.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { Database, NewRow, Row } from '../schema.js';

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

/** The columns a transaction is recorded with (CreateRebateCodeTransaction sets them all). */
const RECORDED = [
  'company_id', 'rebate_code_id', 'amount', 'usage', 'booking_id', 'customer_id', 'service_id', 'created_date', 'updated_date',
] as const;
export type RecordedTransaction = Pick<NewRow<'rebate_code_transactions'>, (typeof RECORDED)[number]>;

/**
 * The company's code, and with a booking the company's booking (its customer and service,
 * as the transaction will show them), in one statement.
 */
const codeQueries = preparedVariants(
  (withBooking: boolean) => String(withBooking),
  (withBooking) =>
    prepared((db, p: Placeholders<{ companyId: string; codeId: number; bookingId: number }>) => {
      const booking = db
        .selectFrom('bookings as b')
        .leftJoin('services as s', 's.id', 'b.service_id')
        .leftJoin('customers as c', 'c.id', 'b.customer_id')
        .select(['b.id as booking_id', 'b.customer_id', 'b.service_id'])
        .select(JOINED_VIEW_COLUMNS)
        .where('b.company_id', '=', p.companyId)
        .where('b.id', '=', p.bookingId);
      return db
        .selectFrom('rebate_codes as r')
        .selectAll('r')
        .$if(withBooking, (q) => q.select(jsonHelpers(db).object(booking).as('booking_json')))
        .where('r.company_id', '=', p.companyId)
        .where('r.id', '=', p.codeId);
    }),
);

/** The values of a change and its recorded row, as the prepared statements take them. */
type ChangeValues = Omit<CodeChange, 'countsUse'> & { minAmount: number; minUsage: number } & { [K in (typeof RECORDED)[number] as `row_${K}`]: RecordedTransaction[K] };

/** Which parts a change's UPDATE has: the direction of each delta, and whether it counts a use. */
interface ChangeShape {
  amount: -1 | 0 | 1;
  usage: -1 | 0 | 1;
  countsUse: boolean;
}
const shapeOf = (change: CodeChange): ChangeShape => ({
  amount: Math.sign(change.amountDelta) as ChangeShape['amount'],
  usage: Math.sign(change.usageDelta) as ChangeShape['usage'],
  countsUse: change.countsUse,
});
const shapeKey = (shape: ChangeShape) => `${shape.amount}/${shape.usage}/${shape.countsUse}`;

/** PostgreSQL: the UPDATE as a data-modifying CTE that the INSERT selects from, one statement. */
const recordInOne = preparedVariants(shapeKey, (shape) =>
  prepared((db, p: Placeholders<ChangeValues>) =>
    db
      .with('applied', (creator) => applyChange(creator, shape, p).returning('id'))
      .insertInto('rebate_code_transactions')
      .columns([...RECORDED])
      // PostgreSQL types the parameters from the columns they are inserted into.
      .expression((eb) => eb.selectFrom('applied').select(RECORDED.map((column) => sql.val(p[`row_${column}`]).as(column))))
      .returningAll(),
  ),
);

/** SQLite: the UPDATE, then the INSERT, in one transaction. */
const applyAlone = preparedVariants(shapeKey, (shape) => prepared((db, p: Placeholders<ChangeValues>) => applyChange(db, shape, p)));
const insertRecorded = prepared((db, p: Placeholders<ChangeValues>) =>
  db
    .insertInto('rebate_code_transactions')
    .values(Object.fromEntries(RECORDED.map((column) => [column, p[`row_${column}`]])) as RecordedTransaction)
    .returningAll(),
);

/** Transactions on rebate codes. */
export function rebateCodeTransactionsRepository({ db }: { db: Kysely<Database> }) {
  return {
    /**
     * The company's code, and with `bookingId` the company's booking (its customer and
     * service, as the transaction will show them), in one statement.
     */
    async findCode(companyId: string, codeId: number, bookingId: number | undefined) {
      const row = await codeQueries(bookingId !== undefined).takeFirst(db, { companyId, codeId, bookingId: bookingId ?? 0 });
      if (!row) return undefined;
      const { booking_json, ...code } = row as typeof row & { booking_json?: Json<BookingView | null> };
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
     * statements run in the write's transaction (the executor's), as calls in this process rather than round trips.
     */
    async record(change: CodeChange, row: RecordedTransaction): Promise<Row<'rebate_code_transactions'> | undefined> {
      const shape = shapeOf(change);
      const { countsUse: _, ...rest } = change;
      const values = {
        ...rest,
        minAmount: -change.amountDelta,
        minUsage: -change.usageDelta,
        ...(Object.fromEntries(RECORDED.map((column) => [`row_${column}`, row[column]])) as Pick<ChangeValues, `row_${(typeof RECORDED)[number]}`>),
      } satisfies ChangeValues;
      if (!isPostgres(db)) {
        const { numAffectedRows } = await applyAlone(shape).run(db, values);
        if (Number(numAffectedRows) !== 1) return undefined;
        return insertRecorded.takeFirst(db, values);
      }
      return statementWithRetries(db, () => recordInOne(shape).takeFirst(db, values));
    },
  };
}

/**
 * A transaction of `code` as its view shows it (with `booking`, as findCode read it), from
 * the row `record` returns and what was read before: no read-back.
 */
export function transactionView(
  stored: Row<'rebate_code_transactions'>,
  code: Pick<Row<'rebate_codes'>, 'sign' | 'type_id' | 'price_sign'>,
  booking?: BookingView,
): TransactionView {
  return { ...stored, code_sign: code.sign, code_type_id: code.type_id, code_price_sign: code.price_sign, ...NOT_JOINED, ...booking };
}

/**
 * A change as ONE conditional UPDATE: a decrease only matches while enough remains (and
 * the code is active, in its period and below MaxNumberOfUses), so concurrent decreases
 * can never overspend. Money is rounded to 2 decimals in SQL (cast to numeric:
 * PostgreSQL's round(x, n) takes numeric) so repeated changes never drift.
 */
function applyChange(db: QueryCreator<Database>, shape: ChangeShape, p: Placeholders<ChangeValues>) {
  let update = db
    .updateTable('rebate_codes')
    .set({ updated: p.at, updated_by: p.by })
    .where('id', '=', p.codeId)
    .where('company_id', '=', p.companyId);
  if (shape.amount !== 0) {
    update = update.set({ remaining_amount: sql<number>`round(cast(remaining_amount + ${p.amountDelta} as numeric), 2)` });
    if (shape.amount < 0) update = update.where('remaining_amount', '>=', p.minAmount);
  }
  if (shape.usage !== 0) {
    update = update.set({ remaining_usage: sql<number>`remaining_usage + ${p.usageDelta}` });
    if (shape.usage < 0) update = update.where('remaining_usage', '>=', p.minUsage);
  }
  if (shape.countsUse) {
    update = update
      .set({ number_of_uses_used: sql<number>`number_of_uses_used + 1` })
      .where('status_id', '=', 1)
      .where('valid_from', '<=', p.at)
      .where('valid_to', '>=', p.at)
      .where((eb) => eb.or([eb('max_number_of_uses', '=', 0), eb('number_of_uses_used', '<', eb.ref('max_number_of_uses'))]));
  }
  return update;
}
