import { sql } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, parseJson, type Json } from '../json.js';
import { nullable, preparedPages, type Page, type PageRequest } from '../paging.js';
import type { Database, Row } from '../schema.js';

export type BillingMethodRow = Row<'billing_methods'> & {
  /** country ids where the method is valid, as stored, in code order */
  countries: string[];
};

interface BillingFilter {
  /** upper-cased; codes match whatever their case (`se` = `SE`) */
  country?: string;
}

/**
 * Pages of billing methods, each with its countries, in one statement (the countries as a
 * JSON list per method). A country filter is an `exists` on the link table (a join would
 * repeat a method per matching row and skew Total), with upper(), which SQLite and
 * PostgreSQL share.
 */
const pages = preparedPages<Database, 'billing_methods', BillingFilter, Row<'billing_methods'> & { countries: Json<{ country_id: string }[]> }>({
  shape: (filter) => (filter.country ? 'country' : ''),
  from: (db, p, shape) => {
    const all = db.selectFrom('billing_methods');
    if (shape !== 'country') return all;
    return all.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('billing_method_countries as c')
          .select(sql.lit(1).as('one'))
          .whereRef('c.billing_method_id', '=', 'billing_methods.id')
          .where(sql`upper(c.country_id)`, '=', p.country!),
      ),
    );
  },
  select: (q, db) =>
    q.selectAll('billing_methods').select((eb) =>
      jsonHelpers(db)
        .array(eb.selectFrom('billing_method_countries as c').select('c.country_id').whereRef('c.billing_method_id', '=', 'billing_methods.id').orderBy('c.country_id'))
        .as('countries'),
    ),
  // Countries is a list, not a column, so it cannot order the query.
  sortable: { Id: 'billing_methods.id', Name: 'billing_methods.name', Description: nullable('billing_methods.description') },
  tiebreak: 'billing_methods.id',
});

/** Billing methods: global reference data, each with the countries it is valid in. */
export function billingMethodsRepository({ db }: Store) {
  return {
    async query(filter: { countryId?: string }, request: PageRequest): Promise<Page<BillingMethodRow>> {
      const country = filter.countryId?.trim();
      const page = await pages(db, { country: country ? country.toUpperCase() : undefined }, request);
      const rows = page.rows.map((row) => ({ ...row, countries: parseJson(row.countries).map((c) => c.country_id) }));
      return { ...page, rows };
    },
  };
}
