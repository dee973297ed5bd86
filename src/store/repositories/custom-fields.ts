import type { Kysely } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, parseJson } from '../json.js';
import { prepared, type Placeholders } from '../prepared.js';
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

/** The values of the queries on one field. */
interface FieldValues {
  companyId: string;
  id: number;
}

/** One field with its two nested lists: one statement, each list a JSON column. */
const loadQuery = prepared((db, p: Placeholders<FieldValues>) => {
  const json = jsonHelpers(db);
  return db
    .selectFrom('custom_fields as f')
    .selectAll('f')
    .select([
      json.array(
        db.selectFrom('custom_field_values as v').select(['v.id', 'v.custom_field_id', 'v.active', 'v.sort_order', 'v.value'])
          .where('v.custom_field_id', '=', p.id).orderBy('v.sort_order').orderBy('v.id'),
      ).as('values_json'),
      json.array(
        db.selectFrom('custom_field_services as l').innerJoin('services as s', 's.id', 'l.service_id')
          .select(['s.id', 's.name', 's.image_url']).where('l.custom_field_id', '=', p.id).orderBy('s.id'),
      ).as('services_json'),
    ])
    .where('f.company_id', '=', p.companyId)
    .where('f.id', '=', p.id);
});

/** Deletes the company's field, answering its id. */
const deleteQuery = prepared((db, p: Placeholders<FieldValues>) =>
  db.deleteFrom('custom_fields').where('company_id', '=', p.companyId).where('id', '=', p.id).returning('id'),
);

async function load(db: Kysely<Database>, companyId: string, id: number): Promise<CustomFieldRecord | undefined> {
  const row = await loadQuery.takeFirst(db, { companyId, id });
  if (!row) return undefined;
  const { values_json, services_json, ...field } = row;
  return { field, values: parseJson(values_json), services: parseJson(services_json) };
}

/** Custom field configurations of a company. */
export function customFieldsRepository({ db }: Store) {
  return {
    /**
     * Deletes the field and answers it as it was read just before, with its values and
     * service links (which the schema's ON DELETE CASCADE deletes with it, enforced on both
     * engines); undefined (nothing deleted) when the company has no such field. Two
     * statements and no transaction: the delete alone is the write, and of two concurrent
     * deletes of one field only one deletes it; the other answers 404, as if it came after.
     */
    async delete(companyId: string, id: number): Promise<CustomFieldRecord | undefined> {
      const record = await load(db, companyId, id);
      if (!record) return undefined;
      const deleted = await deleteQuery.takeFirst(db, { companyId, id });
      return deleted && record;
    },
  };
}
