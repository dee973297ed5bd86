import type { Store } from '../db.js';
import type { NewRow, Row } from '../schema.js';

export type MessageTypeRow = Row<'message_types'>;
export type MessageTemplateRow = Row<'message_templates'>;
export type MessageServiceRow = Pick<Row<'services'>, 'id' | 'name' | 'image_url'>;

/** Message types (global reference data) and the message templates of a company. */
export function messagesRepository({ db }: Store) {
  return {
    messageType(id: number): Promise<MessageTypeRow | undefined> {
      return db.selectFrom('message_types').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Those of `ids` that are services of the company, in one query. */
    async companyServices(companyId: string, ids: readonly number[]): Promise<MessageServiceRow[]> {
      if (ids.length === 0) return [];
      return db
        .selectFrom('services')
        .select(['id', 'name', 'image_url'])
        .where('company_id', '=', companyId)
        .where('id', 'in', [...new Set(ids)])
        .execute();
    },

    /** Inserts the template and its service links in one transaction; answers the stored row. */
    async create(
      template: Omit<NewRow<'message_templates'>, 'id'>,
      serviceIds: readonly number[],
    ): Promise<MessageTemplateRow> {
      return db.transaction().execute(async (trx) => {
        const row = await trx.insertInto('message_templates').values(template).returningAll().executeTakeFirstOrThrow();
        if (serviceIds.length > 0) {
          await trx
            .insertInto('message_template_services')
            .values(serviceIds.map((serviceId) => ({ message_template_id: row.id, service_id: serviceId })))
            .execute();
        }
        return row;
      });
    },
  };
}
