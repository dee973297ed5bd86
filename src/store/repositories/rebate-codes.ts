import { sql, type Kysely } from 'kysely';
import { rebateCodeSignKey } from '../sign-key.js';
import type { Database, NewRow, Row } from '../schema.js';
import { articlesRepository, type ArticleWithServices } from './articles.js';
import { customersRepository } from './customers.js';

export type RebateCodeRow = Row<'rebate_codes'>;

/** A rebate code with everything RebateCodeResponse shows, each list loaded with one query. */
export interface RebateCodeAggregate {
  code: RebateCodeRow;
  days: number[];
  services: Row<'services'>[];
  customers: Row<'customers'>[];
  transactions: TransactionView[];
  payments: Row<'payment_logs'>[];
  article?: ArticleWithServices;
  company?: Pick<Row<'companies'>, 'site_path' | 'payment_provider_id'>;
}

/**
 * True when an insert was refused by the unique (company, sign_key) index: SQLite says
 * SQLITE_CONSTRAINT_UNIQUE naming the columns, PostgreSQL 23505 naming the index.
 */
export function isSignConflict(err: unknown): boolean {
  const e = err as { code?: string; message?: string; constraint?: string };
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE') return /sign_key/.test(e.message ?? '');
  return e?.code === '23505' && e.constraint === 'rebate_codes_company_sign_key_unique';
}

/** Rebate codes of a company. Takes a Store or a transaction (`{ db: trx }`). */
export function rebateCodesRepository({ db }: { db: Kysely<Database> }) {
  const codes = db.selectFrom('rebate_codes').selectAll();
  return {
    findById: (companyId: string, id: number): Promise<RebateCodeRow | undefined> =>
      codes.where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst(),

    /** By sign regardless of case, through the normalized sign_key. */
    findBySign: (companyId: string, sign: string): Promise<RebateCodeRow | undefined> =>
      codes.where('company_id', '=', companyId).where('sign_key', '=', rebateCodeSignKey(sign)).executeTakeFirst(),

    /**
     * `withHistory` false leaves transactions and payment log empty: the public view
     * shows neither, so they need not be read. Customers are always read (the rules use them).
     */
    async load(code: RebateCodeRow, withHistory = true): Promise<RebateCodeAggregate> {
      const id = code.id;
      const [days, services, customers, transactions, payments, article, company] = await Promise.all([
        db.selectFrom('rebate_code_days').select('day_of_week').where('rebate_code_id', '=', id).orderBy('day_of_week').execute(),
        db.selectFrom('rebate_code_services as l').innerJoin('services as s', 's.id', 'l.service_id').selectAll('s')
          .where('l.rebate_code_id', '=', id).orderBy('s.id').execute(),
        db.selectFrom('rebate_code_customers as l').innerJoin('customers as c', 'c.id', 'l.customer_id').selectAll('c')
          .where('l.rebate_code_id', '=', id).orderBy('c.created').orderBy('c.id').execute(),
        withHistory ? transactionViews(db).where('t.rebate_code_id', '=', id).orderBy('t.created_date').orderBy('t.id').execute() : [],
        withHistory ? db.selectFrom('payment_logs').selectAll().where('rebate_code_id', '=', id).orderBy('created').orderBy('id').execute() : [],
        code.article_id === null ? undefined : articlesRepository({ db }).find(code.company_id, code.article_id),
        db.selectFrom('companies').select(['site_path', 'payment_provider_id']).where('id', '=', code.company_id).executeTakeFirst(),
      ]);
      return { code, days: days.map((d) => d.day_of_week), services, customers, transactions, payments, article, company };
    },

    /** The customer's Decrease transactions on the code (negative amount or usage), by e-mail regardless of case. */
    async countCustomerDecreases(codeId: number, email: string): Promise<number> {
      const row = await db
        .selectFrom('rebate_code_transactions as t')
        .innerJoin('customers as c', 'c.id', 't.customer_id')
        .select((eb) => eb.fn.countAll<number | string>().as('uses'))
        .where('t.rebate_code_id', '=', codeId)
        .where(sql`lower(c.email)`, '=', sql<string>`lower(${email.trim()})`)
        .where((eb) => eb.or([eb('t.amount', '<', 0), eb('t.usage', '<', 0)]))
        .executeTakeFirstOrThrow();
      return Number(row.uses);
    },

    /** Inserts a code with its services and customers; answers its id. */
    async insert(row: NewRow<'rebate_codes'>, serviceIds: readonly number[], customerIds: readonly string[]): Promise<number> {
      const { id } = await db.insertInto('rebate_codes').values(row).returning('id').executeTakeFirstOrThrow();
      if (serviceIds.length > 0) {
        await db.insertInto('rebate_code_services').values(serviceIds.map((serviceId) => ({ rebate_code_id: id, service_id: serviceId }))).execute();
      }
      if (customerIds.length > 0) {
        await db.insertInto('rebate_code_customers').values(customerIds.map((customerId) => ({ rebate_code_id: id, customer_id: customerId }))).execute();
      }
      return id;
    },

    customers: customersRepository({ db }),
    articles: articlesRepository({ db }),
    transactions: rebateCodeTransactionsRepository({ db }),
  };
}

/**
 * A transaction as RebateCodeTransactionQueryResponse shows it: with its code's sign, type
 * and price sign, its service and its customer (joined, so a list is one query).
 */
function transactionViews(db: Kysely<Database>) {
  return db
    .selectFrom('rebate_code_transactions as t')
    .innerJoin('rebate_codes as r', 'r.id', 't.rebate_code_id')
    .leftJoin('services as s', 's.id', 't.service_id')
    .leftJoin('customers as c', 'c.id', 't.customer_id')
    .selectAll('t')
    .select([
      'r.sign as code_sign',
      'r.type_id as code_type_id',
      'r.price_sign as code_price_sign',
      's.name as service_name',
      's.description as service_description',
      's.active as service_active',
      'c.firstname as customer_firstname',
      'c.lastname as customer_lastname',
      'c.email as customer_email',
      'c.phone as customer_phone',
      'c.image_url as customer_image_url',
    ]);
}

export type TransactionView = Awaited<ReturnType<ReturnType<typeof transactionViews>['executeTakeFirstOrThrow']>>;

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
  return {
    find: (companyId: string, id: number): Promise<TransactionView | undefined> =>
      transactionViews(db).where('t.company_id', '=', companyId).where('t.id', '=', id).executeTakeFirst(),

    /**
     * Applies a change with ONE conditional UPDATE: a decrease only matches while enough
     * remains (and the code is active, in its period and below MaxNumberOfUses), so
     * concurrent decreases can never overspend. False when no row matched: refused.
     * Money is rounded to 2 decimals in SQL (cast to numeric: PostgreSQL's round(x, n)
     * takes numeric) so repeated changes never drift.
     */
    async apply(change: CodeChange): Promise<boolean> {
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
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insert(row: NewRow<'rebate_code_transactions'>): Promise<number> {
      const { id } = await db.insertInto('rebate_code_transactions').values(row).returning('id').executeTakeFirstOrThrow();
      return id;
    },

    /** The company's booking (for a transaction's BookingId): its customer and service. */
    booking: (companyId: string, id: number) =>
      db
        .selectFrom('bookings')
        .select(['id', 'customer_id', 'service_id'])
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .executeTakeFirst(),
  };
}
