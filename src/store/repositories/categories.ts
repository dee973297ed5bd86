import type { Store } from '../db.js';
import { fetchPage, type Page, type PageRequest } from '../paging.js';
import type { Row } from '../schema.js';

export type CategoryRow = Row<'categories'>;

const sortable = { Id: 'id', Name: 'name', NormalizedName: 'normalized_name', Active: 'active' };

/** Company categories: global reference data. */
export function categoriesRepository({ db }: Store) {
  return {
    query(filter: { id?: number }, request: PageRequest): Promise<Page<CategoryRow>> {
      let filtered = db.selectFrom('categories');
      if (filter.id !== undefined) filtered = filtered.where('id', '=', filter.id);
      return fetchPage(filtered, (q) => q.selectAll(), request, sortable, 'id');
    },
  };
}
