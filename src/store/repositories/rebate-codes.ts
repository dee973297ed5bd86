import { sql, type Kysely, type QueryCreator } from 'kysely';
import { jsonHelpers, jsonList, parseJson } from '../json.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import { isPostgres } from '../statements.js';
import { rebateCodeSignKey } from '../sign-key.js';
import type { Database, NewRow, Row } from '../schema.js';
import { ARTICLE_COLUMNS, articlePart, articleServiceParts, readArticle, SERVICE_VIEW_COLUMNS, type ArticleWithServices, type ServiceView } from './articles.js';
import { transactionViews, type TransactionView } from './rebate-code-transactions.js';

export type RebateCodeRow = Row<'rebate_codes'>;
export type CustomerView = Pick<Row<'customers'>, 'id' | 'firstname' | 'lastname' | 'email' | 'phone' | 'image_url'>;
export type PaymentView = Pick<Row<'payment_logs'>, 'id' | 'amount' | 'amount_credited' | 'currency_id' | 'comments' | 'created' | 'updated'>;
export type CompanyView = Pick<Row<'companies'>, 'site_path' | 'payment_provider_id'>;

/** A rebate code with everything RebateCodeResponse shows. */
export interface RebateCodeAggregate {
  code: RebateCodeRow;
  days: number[];
  services: ServiceView[];
  customers: CustomerView[];
  transactions: TransactionView[];
  payments: PaymentView[];
  article?: ArticleWithServices;
  company?: CompanyView;
}

/** What GetRebateCodeBySign reads besides the code. */
export interface LoadOptions {
  /** false leaves transactions and payment log empty: the public view shows neither, so they are not read */
  withHistory: boolean;
  /** count this customer's uses of the code (when it limits uses per customer) */
  customerEmail?: string;
}

/** The values of a lookup by sign; which lists it reads is the variant (LoadOptions). */
interface BySign {
  companyId: string;
  signKey: string;
  email: string;
}

/**
 * The code by its sign regardless of case (through the normalized sign_key), with every
 * list RebateCodeResponse shows, in ONE statement: each list is a JSON column. The
 * customers are always read (the rules use them); the history only for `withHistory`; the
 * customer's uses are counted only with an e-mail and when the code limits uses per customer.
 */
const bySign = preparedVariants(
  ({ withHistory, withEmail }: { withHistory: boolean; withEmail: boolean }) => `${withHistory}/${withEmail}`,
  ({ withHistory, withEmail }) =>
    prepared((db, p: Placeholders<BySign>) => {
      const json = jsonHelpers(db);
      const outer = <T>(column: string) => sql.ref<T>(`r.${column}`);
      const customerDecreases = db
        .selectFrom('rebate_code_transactions as t')
        .innerJoin('customers as c', 'c.id', 't.customer_id')
        .select((eb) => eb.fn.countAll<number>().as('uses'))
        .where('t.rebate_code_id', '=', outer<number>('id'))
        .where(sql`lower(c.email)`, '=', sql<string>`lower(${p.email})`)
        .where((eb) => eb.or([eb('t.amount', '<', 0), eb('t.usage', '<', 0)]));
      return db
        .selectFrom('rebate_codes as r')
        .selectAll('r')
        .select((eb) => [
          json.array(eb.selectFrom('rebate_code_days as d').select('d.day_of_week').whereRef('d.rebate_code_id', '=', 'r.id').orderBy('d.day_of_week')).as('days_json'),
          json.array(
            eb.selectFrom('rebate_code_services as l').innerJoin('services as s', 's.id', 'l.service_id').select(SERVICE_VIEW_COLUMNS)
              .whereRef('l.rebate_code_id', '=', 'r.id').orderBy('s.id'),
          ).as('services_json'),
          json.array(
            eb.selectFrom('rebate_code_customers as l').innerJoin('customers as c', 'c.id', 'l.customer_id')
              .select(['c.id', 'c.firstname', 'c.lastname', 'c.email', 'c.phone', 'c.image_url'])
              .whereRef('l.rebate_code_id', '=', 'r.id').orderBy('c.created').orderBy('c.id'),
          ).as('customers_json'),
          articlePart(db, 'r.article_id', 'r.company_id').as('article_json'),
          articleServiceParts(db, 'r.article_id').relations.as('article_services_json'),
          companyPart(db, 'r.company_id').as('company_json'),
          json.array(transactionViews(db).where('t.rebate_code_id', '=', outer<number>('id')).orderBy('t.created_date').orderBy('t.id'), withHistory)
            .as('transactions_json'),
          json.array(
            eb.selectFrom('payment_logs as p').select(['p.id', 'p.amount', 'p.amount_credited', 'p.currency_id', 'p.comments', 'p.created', 'p.updated'])
              .whereRef('p.rebate_code_id', '=', 'r.id').orderBy('p.created').orderBy('p.id'),
            withHistory,
          ).as('payments_json'),
          withEmail
            ? eb.case().when('r.max_number_of_uses_per_customer', '>', 0).then(customerDecreases.$asScalar()).else(0).end().as('customer_uses')
            : sql<number>`0`.as('customer_uses'),
        ])
        .where('r.company_id', '=', p.companyId)
        .where('r.sign_key', '=', p.signKey);
    }),
);

/** The company's parts of RebateCodeResponse, for the company named by an outer column. */
function companyPart(db: Kysely<Database>, companyIdColumn: string) {
  return jsonHelpers(db).object(db.selectFrom('companies as co').select(['co.site_path', 'co.payment_provider_id']).where('co.id', '=', sql.ref<string>(companyIdColumn)));
}

const byId = prepared((db, p: Placeholders<{ companyId: string; id: number }>) =>
  db.selectFrom('rebate_codes as r').selectAll('r').where('r.company_id', '=', p.companyId).where('r.id', '=', p.id),
);

const articleQuery = prepared((db, p: Placeholders<{ companyId: string; id: number }>) => {
  const parts = articleServiceParts(db, 'a.id');
  return db
    .selectFrom('articles as a')
    .select(ARTICLE_COLUMNS)
    .select([parts.relations.as('article_services_json'), parts.services.as('services_json'), companyPart(db, 'a.company_id').as('company_json')])
    .where('a.company_id', '=', p.companyId)
    .where('a.id', '=', p.id);
});

/** A new code's row, its links as JSON lists (json.ts jsonList), and (SQLite) its id once inserted. */
type InsertValues = NewRow<'rebate_codes'> & { serviceIds: string; customerIds: string; codeId: number };
type CodeColumns = Array<keyof NewRow<'rebate_codes'>>;

const codeValues = (columns: CodeColumns, p: Placeholders<InsertValues>) =>
  Object.fromEntries(columns.map((column) => [column, p[column]])) as NewRow<'rebate_codes'>;

/**
 * The code's row, or nothing when the company has its sign already: the unique index on
 * (company_id, sign_key) skips it (ON CONFLICT DO NOTHING) instead of failing, so a clash
 * leaves the transaction usable (PostgreSQL aborts one on a failed statement) and the
 * caller draws another sign in it. Any other conflict still fails.
 */
const insertCodeRow = (creator: QueryCreator<Database>, columns: CodeColumns, p: Placeholders<InsertValues>) =>
  creator
    .insertInto('rebate_codes')
    .values(codeValues(columns, p))
    .onConflict((oc) => oc.columns(['company_id', 'sign_key']).doNothing())
    .returningAll();

/**
 * PostgreSQL: the code and its links in one statement, one link per list item (none for an
 * empty list, and none when the sign was skipped: the links select from the code's rows).
 */
const insertInOne = preparedVariants(
  (columns: CodeColumns) => columns.join(','),
  (columns) =>
    prepared((db, p: Placeholders<InsertValues>) => {
      const links = (table: string, column: string, list: string, type: 'integer' | 'text') => sql<Record<string, never>>`(
        insert into ${sql.table(table)} (rebate_code_id, ${sql.ref(column)})
        select code.id, list.value from code, (${jsonList(db, list, type)}) as list)`;
      return db
        .with('code', (creator) => insertCodeRow(creator, columns, p))
        .with('services', () => links('rebate_code_services', 'service_id', p.serviceIds, 'integer'))
        .with('customers', () => links('rebate_code_customers', 'customer_id', p.customerIds, 'text'))
        .selectFrom('code')
        .selectAll();
    }),
);

/** SQLite: the code, then each list of links. */
const insertCode = preparedVariants(
  (columns: CodeColumns) => columns.join(','),
  (columns) => prepared((db, p: Placeholders<InsertValues>) => insertCodeRow(db, columns, p)),
);
const linksInsert = (table: 'rebate_code_services' | 'rebate_code_customers', column: string, list: 'serviceIds' | 'customerIds', type: 'integer' | 'text') =>
  prepared((db, p: Placeholders<InsertValues>) =>
    sql`insert into ${sql.table(table)} (rebate_code_id, ${sql.ref(column)}) select ${p.codeId}, list.value from (${jsonList(db, p[list], type)}) as list`,
  );
const insertServices = linksInsert('rebate_code_services', 'service_id', 'serviceIds', 'integer');
const insertCustomers = linksInsert('rebate_code_customers', 'customer_id', 'customerIds', 'text');

/** Rebate codes of a company. Takes a Store or a transaction (`{ db: trx }`). */
export function rebateCodesRepository({ db }: { db: Kysely<Database> }) {
  return {
    findById: (companyId: string, id: number): Promise<RebateCodeRow | undefined> => byId.takeFirst(db, { companyId, id }),

    /** The code by its sign, with every list RebateCodeResponse shows, in one statement (`bySign`). */
    async loadBySign(companyId: string, sign: string, options: LoadOptions): Promise<{ aggregate: RebateCodeAggregate; customerUses: number } | undefined> {
      const email = options.customerEmail;
      const query = bySign({ withHistory: options.withHistory, withEmail: email !== undefined });
      const row = await query.takeFirst(db, { companyId, signKey: rebateCodeSignKey(sign), email: email?.trim() ?? '' });
      if (!row) return undefined;
      const { days_json, services_json, customers_json, article_json, article_services_json, company_json, transactions_json, payments_json, customer_uses } = row;
      const aggregate: RebateCodeAggregate = {
        // The row itself, its list columns beside the code's: nothing reads a code's fields by enumerating them.
        code: row,
        days: parseJson(days_json).map((d) => d.day_of_week),
        services: parseJson(services_json),
        customers: parseJson(customers_json),
        transactions: parseJson(transactions_json),
        payments: parseJson(payments_json),
        article: readArticle({ article: article_json, articleServices: article_services_json }),
        company: parseJson(company_json) ?? undefined,
      };
      return { aggregate, customerUses: Number(customer_uses ?? 0) };
    },

    /**
     * The company's article with its service relations, the services a code made from it
     * is connected to, and the company's parts of RebateCodeResponse, in one statement.
     */
    async findArticle(companyId: string, id: number) {
      const row = await articleQuery.takeFirst(db, { companyId, id });
      if (!row) return undefined;
      const { article_services_json, services_json, company_json, ...article } = row;
      return {
        article: { article, services: parseJson(article_services_json) } satisfies ArticleWithServices,
        services: parseJson(services_json),
        company: parseJson(company_json) ?? undefined,
      };
    },

    /**
     * Inserts a code with its services and customers; answers the stored row, or undefined
     * when the company has the code's sign already (nothing is written: see insertCodeRow).
     * Per engine, because the engines differ: PostgreSQL writes the three tables in ONE
     * statement, the links data-modifying CTEs that select the new code's id (one round
     * trip); SQLite has no data-modifying CTEs, so one INSERT per table, calls in this process.
     */
    async insert(row: NewRow<'rebate_codes'>, serviceIds: readonly number[], customerIds: readonly string[]): Promise<RebateCodeRow | undefined> {
      const columns = Object.keys(row) as Array<keyof NewRow<'rebate_codes'>>;
      const values: InsertValues = { ...row, serviceIds: JSON.stringify(serviceIds), customerIds: JSON.stringify(customerIds), codeId: 0 };
      if (isPostgres(db)) return insertInOne(columns).takeFirst(db, values);
      const code = await insertCode(columns).takeFirst(db, values);
      if (!code) return undefined;
      const ids = { ...values, codeId: code.id };
      if (serviceIds.length > 0) await insertServices.run(db, ids);
      if (customerIds.length > 0) await insertCustomers.run(db, ids);
      return code;
    },
  };
}

