import type { Store } from '../db.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Row } from '../schema.js';

export type TagRow = Row<'tags'>;

/** Sets Active = 0 on the company's tag and answers it as it now is. */
const deactivateQuery = prepared((db, p: Placeholders<{ companyId: string; id: number }>) =>
  db.updateTable('tags').set({ active: 0 }).where('company_id', '=', p.companyId).where('id', '=', p.id).returningAll(),
);

/** Tags of a company. */
export function tagsRepository({ db }: Store) {
  return {
    /** Sets Active = 0 and answers the tag as it now is; undefined when the company has no such tag. */
    async deactivate(companyId: string, id: number): Promise<TagRow | undefined> {
      return deactivateQuery.takeFirst(db, { companyId, id });
    },
  };
}
