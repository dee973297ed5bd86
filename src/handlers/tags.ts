import { found } from '../domain/refusals.js';
import { tagsRepository, type TagRow } from '../store/repositories/tags.js';
import { bool, opt, type Answer } from '../store/prepared.js';
import type { HandlersOf, Schemas } from './types.js';

export const toTag = (row: TagRow) =>
  ({
    Id: row.id, CompanyId: row.company_id, Name: row.name, Scope: opt(row.scope),
    Color: opt(row.color), SortOrder: row.sort_order, Active: bool(row.active), CreatedDate: row.created_date,
  } satisfies Answer<Schemas['TagResponse']>);

export const tagHandlers: HandlersOf<'DeleteTag'> = {
  /** Soft delete: the tag is kept with Active = false. */
  async DeleteTag({ params, companyId, store }) {
    return toTag(found(await tagsRepository(store).deactivate(companyId, params.Id), 'Tag not found.'));
  },
};
