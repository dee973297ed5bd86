import { sql, type Kysely } from 'kysely';
import type { Database, NewRow, Row } from '../schema.js';

export type CustomerRow = Row<'customers'>;

/** Customers of a company, as CreateArticleRebateCode needs them. */
export function customersRepository({ db }: { db: Kysely<Database> }) {
  return {
    async findById(companyId: string, id: string): Promise<CustomerRow | undefined> {
      return db
        .selectFrom('customers')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst();
    },

    /**
     * The profile with this e-mail, compared case-insensitively (the
     * customers_company_email_idx index is on lower(email)); the oldest when several.
     *
     * For a purchase that creates the profile when none is found, inside its transaction:
     * nothing in the schema makes an e-mail unique (the index is not unique: imported data
     * may hold several profiles per e-mail), so two purchases on two connections could both
     * find none and both create one. First the company's row is updated (to itself): that
     * row lock makes such purchases of one company take turns until commit, on every
     * engine and isolation level. Under READ COMMITTED the second then finds the first's
     * profile; under REPEATABLE READ and SERIALIZABLE it fails with a serialization failure
     * and is run again (transactions.ts), and then finds it. SQLite writes one transaction at
     * a time anyway; there the update only takes the write lock early. It is a non-key
     * update, so it does not block rows being added that refer to the company.
     */
    async findByEmailForUpdate(companyId: string, email: string): Promise<CustomerRow | undefined> {
      await db.updateTable('companies').set({ name: sql<string>`name` }).where('id', '=', companyId).execute();
      return db
        .selectFrom('customers')
        .selectAll()
        .where('company_id', '=', companyId)
        // lower() on both sides: the database folds case the same way for both
        .where(sql`lower(email)`, '=', sql<string>`lower(${email.trim()})`)
        .orderBy('created')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
    },

    async insert(row: NewRow<'customers'>): Promise<CustomerRow> {
      return db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /** Appends a line to the comments in one statement, so concurrent appends never lose one. */
    async appendComment(companyId: string, id: string, line: string): Promise<void> {
      await db
        .updateTable('customers')
        .set({
          comments: sql<string>`case when comments is null or comments = '' then ${line} else comments || ${'\n'} || ${line} end`,
        })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .execute();
    },
  };
}
