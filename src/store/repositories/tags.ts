import type { Store } from '../db.js';
import type { Row } from '../schema.js';

export type TagRow = Row<'tags'>;

/** Tags of a company. */
export function tagsRepository({ db }: Store) {
  return {
    /** Sets Active = 0 and answers the tag as it now is; undefined when the company has no such tag. */
    async deactivate(companyId: string, id: number): Promise<TagRow | undefined> {
      return db
        .updateTable('tags')
        .set({ active: 0 })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
