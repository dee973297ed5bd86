import { sql } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, parseJson } from '../json.js';
import { fetchPage, nullable, type Page, type PageRequest } from '../paging.js';
import type { Row } from '../schema.js';

export type BillingMethodRow = Row<'billing_methods'> & {
  /** country ids where the method is valid, as stored, in code order */
  countries: string[];
};

/** Countries is a list, not a column, so it cannot order the query. */
const sortable = { Id: 'billing_methods.id', Name: 'billing_methods.name', Description: nullable('billing_methods.description') };

/** Billing methods: global reference data, each with the countries it is valid in. */
export function billingMethodsRepository({ db }: Store) {
  const json = jsonHelpers(db);
  return {
    /**
     * One page of billing methods, each with its countries, in one statement (the countries
     * as a JSON list per method). A country filter is an `exists` on the link table (a
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
      const withCountries = (q: typeof filtered) =>
        q.selectAll('billing_methods').select((eb) =>
          json
            .array(eb.selectFrom('billing_method_countries as c').select('c.country_id').whereRef('c.billing_method_id', '=', 'billing_methods.id').orderBy('c.country_id'))
            .as('countries'),
        );
      const page = await fetchPage(filtered, withCountries, request, sortable, 'billing_methods.id');
      const rows = page.rows.map((row) => ({ ...row, countries: parseJson(row.countries).map((c) => c.country_id) }));
      return { ...page, rows };
    },
  };
}
