import { sql } from 'kysely';
import type { Store } from '../db.js';
import { fetchPage, type Page, type PageRequest } from '../paging.js';
import type { Row } from '../schema.js';

export type BillingMethodRow = Row<'billing_methods'> & {
  /** country ids where the method is valid, as stored, in code order */
  countries: string[];
};

/** Countries is a list, not a column, so it cannot order the query. */
const sortable = { Id: 'billing_methods.id', Name: 'billing_methods.name', Description: 'billing_methods.description' };

/** Billing methods: global reference data, each with the countries it is valid in. */
export function billingMethodsRepository({ db }: Store) {
  return {
    /**
     * One page of billing methods. A country filter is an `exists` on the link table (a
     * join would repeat a method per matching row and skew Total); codes match whatever
     * their case (`se` = `SE`) with upper(), which SQLite and PostgreSQL share.
     */
    async query(filter: { countryId?: string }, request: PageRequest): Promise<Page<BillingMethodRow>> {
      let filtered = db.selectFrom('billing_methods');
      const country = filter.countryId?.trim();
      if (country) {
        filtered = filtered.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('billing_method_countries as c')
              .select(sql.lit(1).as('one'))
              .whereRef('c.billing_method_id', '=', 'billing_methods.id')
              .where(sql`upper(c.country_id)`, '=', country.toUpperCase()),
          ),
        );
      }
      const page = await fetchPage(filtered, (q) => q.selectAll('billing_methods'), request, sortable, 'billing_methods.id');
      // The page's countries in one query, not one per method.
      const ids = page.rows.map((row) => row.id);
      const links = ids.length === 0 ? [] : await db
        .selectFrom('billing_method_countries')
        .select(['billing_method_id', 'country_id'])
        .where('billing_method_id', 'in', ids)
        .orderBy('country_id')
        .execute();
      const byMethod = new Map<number, string[]>(ids.map((id) => [id, []]));
      for (const link of links) byMethod.get(link.billing_method_id)?.push(link.country_id);
      return { ...page, rows: page.rows.map((row) => ({ ...row, countries: byMethod.get(row.id) ?? [] })) };
    },
  };
}
