import { sql } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, jsonList, parseJson } from '../json.js';
import { isPostgres } from '../statements.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { NewRow, Row } from '../schema.js';

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

/** The values of a context read; `serviceIds` is a JSON list (json.ts jsonList). */
interface ContextValues {
  companyId: string;
  typeId: number;
  serviceIds: string;
}

/**
 * Whether the company exists, the message type, and those of the listed services that are
 * the company's: one statement, each part a column. The variant is whether any services
 * are asked for (none: an empty list, without reading the services).
 */
const contextQueries = preparedVariants(
  (withServices: boolean) => String(withServices),
  (withServices) =>
    prepared((db, p: Placeholders<ContextValues>) => {
      const json = jsonHelpers(db);
      return db.selectNoFrom((eb) => [
        eb.exists(db.selectFrom('companies').select('id').where('id', '=', p.companyId)).as('company_exists'),
        json.object(
          db.selectFrom('message_types as t')
            .select(['t.id', 't.name', 't.description', 't.max_characters', 't.default_text', 't.send_method_id'])
            .where('t.id', '=', p.typeId),
        ).as('type_json'),
        json.array(
          db.selectFrom('services as s').select(['s.id', 's.name', 's.image_url'])
            .where('s.company_id', '=', p.companyId)
            .where(sql<boolean>`${sql.ref('s.id')} in (${jsonList(db, p.serviceIds, 'integer')})`),
          withServices,
        ).as('services_json'),
      ]);
    }),
);

type NewTemplate = Omit<NewRow<'message_templates'>, 'id'>;
/** Every column of a new template, each with a value (see TEMPLATE_DEFAULTS). */
type TemplateValues = { [K in keyof NewTemplate]-?: Exclude<NewTemplate[K], undefined> };

/** What a column left out of an insert holds: the table's default (migration 0001). */
const TEMPLATE_DEFAULTS = { sender: null, language: null, is_default: 0 } satisfies Partial<TemplateValues>;

/** The template's values as an insert takes them: every column, a left-out one its default. */
function templateValues(template: NewTemplate): TemplateValues {
  const values: Record<string, unknown> = { ...TEMPLATE_DEFAULTS };
  // Kysely leaves a column whose value is undefined out of an insert, as if not given.
  for (const [column, value] of Object.entries(template)) if (value !== undefined) values[column] = value;
  return values as TemplateValues;
}

/** The insert's values: one placeholder per column. */
const templateColumns = (p: Placeholders<TemplateValues>): TemplateValues => ({
  company_id: p.company_id,
  type_id: p.type_id,
  name: p.name,
  title: p.title,
  body: p.body,
  sender: p.sender,
  language: p.language,
  is_default: p.is_default,
  created: p.created,
});

/** The template's values and its services as a JSON list; `templateId` (SQLite) the new template's. */
type CreateValues = TemplateValues & { serviceIds: string; templateId: number };

const insertTemplate = prepared((db, p: Placeholders<TemplateValues>) =>
  db.insertInto('message_templates').values(templateColumns(p)).returningAll(),
);

/** PostgreSQL: the template and its links in ONE statement (the links a data-modifying CTE selecting the new id). */
const insertWithLinks = prepared((db, p: Placeholders<CreateValues>) =>
  db
    .with('template', (creator) => creator.insertInto('message_templates').values(templateColumns(p)).returningAll())
    .with('links', () => sql<Record<string, never>>`(
      insert into message_template_services (message_template_id, service_id)
      select template.id, list.value from template, (${jsonList(db, p.serviceIds, 'integer')}) as list)`)
    .selectFrom('template')
    .selectAll(),
);

/** SQLite: the links of a template inserted before. */
const insertLinks = prepared((db, p: Placeholders<CreateValues>) =>
  sql`insert into message_template_services (message_template_id, service_id)
    select ${p.templateId}, list.value from (${jsonList(db, p.serviceIds, 'integer')}) as list`,
);

/** Message types (global reference data) and the message templates of a company. */
export function messagesRepository({ db }: Store) {
  return {
    /**
     * Whether the company exists, the message type, and those of `serviceIds` that are the
     * company's: one statement, each part a column.
     */
    async context(companyId: string, typeId: number, serviceIds: readonly number[]): Promise<TemplateContext> {
      const row = await contextQueries(serviceIds.length > 0).takeFirst(db, { companyId, typeId, serviceIds: JSON.stringify(serviceIds) });
      // EXISTS is a boolean on PostgreSQL, 0/1 on SQLite.
      return { companyExists: Boolean(row!.company_exists), type: parseJson(row!.type_json) ?? undefined, services: parseJson(row!.services_json) };
    },

    /**
     * Inserts the template and its service links; answers the stored row. Per engine, as
     * the engines differ: PostgreSQL writes both tables in ONE statement (the links a
     * data-modifying CTE selecting the new template's id, one round trip); SQLite has no
     * data-modifying CTEs, so one INSERT per table, in the write's transaction (the executor's).
     */
    async create(template: NewTemplate, serviceIds: readonly number[]): Promise<MessageTemplateRow> {
      const values = templateValues(template);
      if (serviceIds.length === 0) return (await insertTemplate.takeFirst(db, values))!;
      const withLinks: CreateValues = { ...values, serviceIds: JSON.stringify(serviceIds), templateId: 0 };
      if (isPostgres(db)) return (await insertWithLinks.takeFirst(db, withLinks))!;
      const row = (await insertTemplate.takeFirst(db, values))!;
      await insertLinks.run(db, { ...withLinks, templateId: row.id });
      return row;
    },
  };
}
