import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Companies: the owners of every company-scoped row. Takes the Kysely instance or a transaction. */
export function companiesRepository({ db }: { db: Kysely<Database> }) {
  return {
    async exists(companyId: string): Promise<boolean> {
      return (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !== undefined;
    },
  };
}
