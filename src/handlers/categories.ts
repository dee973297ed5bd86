import { categoriesRepository, type CategoryRow } from '../store/repositories/categories.js';
import { bool } from '../store/prepared.js';
import { envelope } from './query.js';
import type { HandlersOf, Schemas } from './types.js';

export const toCategory = (row: CategoryRow): Schemas['CompanyCategoryQueryResponse'] => ({
  Id: row.id,
  Name: row.name,
  NormalizedName: row.normalized_name,
  Active: bool(row.active),
});

export const categoryHandlers: HandlersOf<'CategoryQuery'> = {
  async CategoryQuery({ query, store }) {
    const page = await categoriesRepository(store).query({ id: query.Id }, query);
    return envelope(page, toCategory);
  },
};
