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
     */
    async findByEmail(companyId: string, email: string): Promise<CustomerRow | undefined> {
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

    async insert(row: NewRow<'customers'>): Promise<void> {
      await db.insertInto('customers').values(row).execute();
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
