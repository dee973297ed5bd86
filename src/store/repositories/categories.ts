import type { Store } from '../db.js';
import { preparedPages, type Page, type PageRequest } from '../paging.js';
import type { Database, Row } from '../schema.js';

export type CategoryRow = Row<'categories'>;

interface CategoryFilter {
  id?: number;
}

const pages = preparedPages<Database, 'categories', CategoryFilter, CategoryRow>({
  shape: (filter) => (filter.id !== undefined ? 'id' : ''),
  from: (db, p, shape) => {
    const all = db.selectFrom('categories');
    return shape === 'id' ? all.where('id', '=', p.id!) : all;
  },
  select: (q) => q.selectAll(),
  sortable: { Id: 'id', Name: 'name', NormalizedName: 'normalized_name', Active: 'active' },
  tiebreak: 'id',
});

/** Company categories: global reference data. */
export function categoriesRepository({ db }: Store) {
  return {
    query: (filter: CategoryFilter, request: PageRequest): Promise<Page<CategoryRow>> => pages(db, filter, request),
  };
}
