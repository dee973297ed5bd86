import { sql, type Kysely } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, parseJson } from '../json.js';
import { isPostgres } from '../migrations/helpers.js';
import type { Database, NewRow, Row } from '../schema.js';
import { inTransaction } from '../transactions.js';

export type MessageTypeRow = Row<'message_types'>;
export type MessageTemplateRow = Row<'message_templates'>;
export type MessageServiceRow = Pick<Row<'services'>, 'id' | 'name' | 'image_url'>;

/** What the rules of a new template need from the store. */
export interface TemplateContext {
  companyExists: boolean;
  /** undefined when TypeId names no message type */
  type?: MessageTypeRow;
  /** those of the requested services that are the company's */
  services: MessageServiceRow[];
}

/** Inserts a template row (in a transaction or not). */
const insertTemplate = (db: Kysely<Database>, template: Omit<NewRow<'message_templates'>, 'id'>) =>
  db.insertInto('message_templates').values(template).returningAll().executeTakeFirstOrThrow();

/** Message types (global reference data) and the message templates of a company. */
export function messagesRepository({ db }: Store) {
  const json = jsonHelpers(db);
  return {
    /**
     * Whether the company exists, the message type, and those of `serviceIds` that are the
     * company's: one statement, each part a column.
     */
    async context(companyId: string, typeId: number, serviceIds: readonly number[]): Promise<TemplateContext> {
      const row = await db
        .selectNoFrom((eb) => [
          eb.exists(db.selectFrom('companies').select('id').where('id', '=', companyId)).as('company_exists'),
          json.object(
            db.selectFrom('message_types as t')
              .select(['t.id', 't.name', 't.description', 't.max_characters', 't.default_text', 't.send_method_id'])
              .where('t.id', '=', typeId),
          ).as('type_json'),
          json.array(
            db.selectFrom('services as s').select(['s.id', 's.name', 's.image_url'])
              .where('s.company_id', '=', companyId).where('s.id', 'in', [...new Set(serviceIds)]),
            serviceIds.length > 0,
          ).as('services_json'),
        ])
        .executeTakeFirstOrThrow();
      // EXISTS is a boolean on PostgreSQL, 0/1 on SQLite.
      return { companyExists: Boolean(row.company_exists), type: parseJson(row.type_json) ?? undefined, services: parseJson(row.services_json) };
    },

    /**
     * Inserts the template and its service links; answers the stored row. Per engine, as
     * the engines differ: PostgreSQL writes both tables in ONE statement (the links a
     * data-modifying CTE selecting the new template's id, one round trip); SQLite has no
     * data-modifying CTEs, so one INSERT per table, in one transaction when there are links.
     */
    async create(template: Omit<NewRow<'message_templates'>, 'id'>, serviceIds: readonly number[]): Promise<MessageTemplateRow> {
      if (serviceIds.length === 0) return insertTemplate(db, template);
      if (isPostgres(db)) {
        return db
          .with('template', (creator) => creator.insertInto('message_templates').values(template).returningAll())
          .with('links', () => sql<Record<string, never>>`(
            insert into message_template_services (message_template_id, service_id)
            select template.id, service from template, unnest(cast(${[...serviceIds]} as integer[])) as service)`)
          .selectFrom('template')
          .selectAll()
          .executeTakeFirstOrThrow();
      }
      return inTransaction({ db }, async (tx) => {
        const row = await insertTemplate(tx.db, template);
        await tx.db
          .insertInto('message_template_services')
          .values(serviceIds.map((serviceId) => ({ message_template_id: row.id, service_id: serviceId })))
          .execute();
        return row;
      });
    },
  };
}
