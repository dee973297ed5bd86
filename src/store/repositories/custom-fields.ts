import type { Kysely } from 'kysely';
import type { Store } from '../db.js';
import type { Database, Row } from '../schema.js';

export type CustomFieldRow = Row<'custom_fields'>;
export type CustomFieldValueRow = Row<'custom_field_values'>;
export type CustomFieldServiceRow = { id: number; name: string; image_url: string | null };

/** A custom field configuration with its choices and connected services. */
export interface CustomFieldRecord {
  field: CustomFieldRow;
  values: CustomFieldValueRow[];
  services: CustomFieldServiceRow[];
}

/** One field with its two nested lists: three queries, whatever the number of rows. */
async function load(db: Kysely<Database>, companyId: string, id: number): Promise<CustomFieldRecord | undefined> {
  const field = await db.selectFrom('custom_fields').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!field) return undefined;
  const values = await db.selectFrom('custom_field_values').selectAll().where('custom_field_id', '=', id).orderBy('sort_order').orderBy('id').execute();
  const services = await db
    .selectFrom('custom_field_services as link')
    .innerJoin('services', 'services.id', 'link.service_id')
    .select(['services.id as id', 'services.name as name', 'services.image_url as image_url'])
    .where('link.custom_field_id', '=', id)
    .orderBy('services.id')
    .execute();
  return { field, values, services };
}

/** Custom field configurations of a company. */
export function customFieldsRepository({ db }: Store) {
  return {
    /**
     * Deletes the field, its values and its service links in one transaction and answers
     * them as they were; undefined (nothing deleted) when the company has no such field.
     * The links are deleted explicitly rather than left to ON DELETE CASCADE, so the
     * outcome does not depend on the engine enforcing foreign keys.
     */
    async delete(companyId: string, id: number): Promise<CustomFieldRecord | undefined> {
      return db.transaction().execute(async (trx) => {
        const record = await load(trx, companyId, id);
        if (!record) return undefined;
        await trx.deleteFrom('custom_field_services').where('custom_field_id', '=', id).execute();
        await trx.deleteFrom('custom_field_values').where('custom_field_id', '=', id).execute();
        await trx.deleteFrom('custom_fields').where('company_id', '=', companyId).where('id', '=', id).execute();
        return record;
      });
    },
  };
}
