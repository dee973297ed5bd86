import { sql, type Kysely } from 'kysely';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database, NewRow, Row } from '../schema.js';

export type CustomerRow = Row<'customers'>;

type NewCustomer = NewRow<'customers'>;
/** Every column of a new customer, each with a value (see CUSTOMER_DEFAULTS). */
type CustomerValues = { [K in keyof NewCustomer]-?: Exclude<NewCustomer[K], undefined> };

/**
 * What a column left out of an insert holds: the table's default (migration 0001). Every
 * column but those an insert must give is here (`satisfies` fails on one missing or unknown).
 */
const CUSTOMER_DEFAULTS = {
  firstname: null, lastname: null, email: null, phone: null, social_user_name: null, image_url: null,
  personal_identity_number: null, corporate_identity_number: null, invoice_address1: null,
  invoice_address2: null, invoice_city: null, invoice_postal_code: null, invoice_country_code: null,
  subscribed_to_newsletter: 0, comments: null,
} satisfies Omit<CustomerValues, 'id' | 'company_id' | 'created'>;

const CUSTOMER_COLUMNS = ['id', 'company_id', 'created', ...Object.keys(CUSTOMER_DEFAULTS)] as Array<keyof CustomerValues>;

const byId = prepared((db, p: Placeholders<{ companyId: string; id: string }>) =>
  db.selectFrom('customers').selectAll().where('company_id', '=', p.companyId).where('id', '=', p.id),
);

/** Updates the company's row to itself: a row lock (see findByEmailForUpdate). */
const lockCompany = prepared((db, p: Placeholders<{ companyId: string }>) =>
  db.updateTable('companies').set({ name: sql<string>`name` }).where('id', '=', p.companyId),
);

const byEmail = prepared((db, p: Placeholders<{ companyId: string; email: string }>) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', p.companyId)
    // lower() on both sides: the database folds case the same way for both
    .where(sql`lower(email)`, '=', sql<string>`lower(${p.email})`)
    .orderBy('created')
    .orderBy('id')
    .limit(1),
);

/** Every column, a left-out one its default (the same row as an insert without it). */
const insertQuery = prepared((db, p: Placeholders<CustomerValues>) =>
  db
    .insertInto('customers')
    .values(Object.fromEntries(CUSTOMER_COLUMNS.map((column) => [column, p[column]])) as CustomerValues)
    .returningAll(),
);

const appendCommentQuery = prepared((db, p: Placeholders<{ companyId: string; id: string; line: string }>) =>
  db
    .updateTable('customers')
    .set({
      comments: sql<string>`case when comments is null or comments = '' then ${p.line} else comments || ${'\n'} || ${p.line} end`,
    })
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id),
);

/** Customers of a company, as CreateArticleRebateCode needs them. */
export function customersRepository({ db }: { db: Kysely<Database> }) {
  return {
    findById(companyId: string, id: string): Promise<CustomerRow | undefined> {
      return byId.takeFirst(db, { companyId, id: id.toLowerCase() });
    },

    /**
     * The profile with this e-mail, compared case-insensitively; the oldest when several. For
     * a purchase that creates it when none is found: e-mails are not unique, so the company's
     * row is first updated to itself, and that row lock makes such purchases of one company
     * take turns until commit on every engine (docs/decisions.md, "Engines", "Buyers").
     */
    async findByEmailForUpdate(companyId: string, email: string): Promise<CustomerRow | undefined> {
      await lockCompany.run(db, { companyId });
      return byEmail.takeFirst(db, { companyId, email: email.trim() });
    },

    async insert(row: NewCustomer): Promise<CustomerRow> {
      const values: Record<string, unknown> = { ...CUSTOMER_DEFAULTS };
      // Kysely leaves a column whose value is undefined out of an insert, as if not given.
      for (const [column, value] of Object.entries(row)) if (value !== undefined) values[column] = value;
      return (await insertQuery.takeFirst(db, values as CustomerValues))!;
    },

    /** Appends a line to the comments in one statement, so concurrent appends never lose one. */
    async appendComment(companyId: string, id: string, line: string): Promise<void> {
      await appendCommentQuery.run(db, { companyId, id, line });
    },
  };
}
