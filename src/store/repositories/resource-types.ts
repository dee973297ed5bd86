import { sql, type Kysely, type RawBuilder } from 'kysely';
import { jsonHelpers, jsonList, parseJson } from '../json.js';
import { lockRows } from '../locks.js';
import { isPostgres } from '../statements.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database, Row } from '../schema.js';

export type ResourceTypeRow = Row<'resource_types'>;
/** The member columns a resource type shows (named: they are read as JSON, and SQLite's json_object cannot take `*`). */
const MEMBER_COLUMNS = [
  'm.id', 'm.name', 'm.active', 'm.description', 'm.email', 'm.mobile_phone', 'm.color', 'm.image_url',
  'm.email_notification', 'm.sms_notification', 'm.send_email_reminder', 'm.send_sms_reminder',
] as const;
type MemberColumn = (typeof MEMBER_COLUMNS)[number] extends `m.${infer C extends keyof Row<'resources'>}` ? C : never;
/** A member resource of a type, with the type's priority for it. */
export type MemberRow = Pick<Row<'resources'>, MemberColumn> & { priority: number | null };
export type FullResourceType = { type: ResourceTypeRow; resources: MemberRow[] };

export interface NewResourceType {
  companyId: string;
  name: string;
  description?: string;
  active: boolean;
  now: string;
}

/** A resource to link, as the request lists it (not yet checked). */
export interface NewMember {
  id: number;
  priority?: number;
}

/** The values of the type's row. */
interface TypeValues {
  companyId: string;
  name: string;
  description: string | null;
  active: number;
  now: string;
}

/** The values of the type's links. */
interface LinkValues {
  companyId: string;
  /** JSON of the requested resource ids, each once (jsonList) */
  idsJson: string;
  /** JSON object of each requested resource id's priority (null when none) */
  prioritiesJson: string;
}

/** The type's row for the company, selected from the company's row: none when the store holds no such company. */
const insertType = (db: Kysely<Database>, p: Placeholders<TypeValues>) =>
  db
    .insertInto('resource_types')
    .columns(['company_id', 'name', 'description', 'active', 'created', 'updated'])
    .expression(
      db.selectFrom('companies').where('id', '=', p.companyId).select((eb) => [
        'id',
        eb.val(p.name).as('name'),
        eb.val(p.description).as('description'),
        eb.val(p.active).as('active'),
        eb.val(p.now).as('created'),
        eb.val(p.now).as('updated'),
      ]),
    )
    .returningAll();

/**
 * The link rows of type `typeId`: those of the requested resources that are the
 * company's, locked against deletion until commit (store/locks.ts), with their priority.
 * A resource that is not the company's, or was deleted meanwhile, is simply not linked,
 * never a foreign-key failure; the caller refuses the request by what is missing. (No
 * company, no resources of it: nothing is linked to a type that was not inserted.)
 */
const linkRows = (db: Kysely<Database>, typeId: RawBuilder<number>, p: Placeholders<LinkValues>) => {
  // The resource's priority, looked up by its id in the JSON object; the cast gives
  // PostgreSQL the value's type (JSON text there), and reads JSON null as NULL on both.
  const priority = isPostgres(db)
    ? sql<number | null>`cast(cast(${p.prioritiesJson} as json) ->> cast(r.id as text) as integer)`
    : sql<number | null>`cast(json_extract(${p.prioritiesJson}, '$."' || r.id || '"') as integer)`;
  return db
    .selectFrom('resources as r')
    .select([typeId.as('resource_type_id'), 'r.id', priority.as('priority')])
    .where('r.company_id', '=', p.companyId)
    .where(sql<boolean>`${sql.ref('r.id')} in (${jsonList(db, p.idsJson, 'integer')})`)
    .$call(lockRows(db, 'key share'));
};
const linkColumns = ['resource_type_id', 'resource_id', 'priority'] as const;

/** The type alone (SQLite, or no resources listed). */
const insertTypeQuery = prepared((db, p: Placeholders<TypeValues>) => insertType(db, p));

/**
 * PostgreSQL: the type and its links in ONE statement, the links a data-modifying CTE
 * selecting the new type's id, answering the type with its members as a JSON column.
 */
const insertTypeWithLinksQuery = prepared((db, p: Placeholders<TypeValues & LinkValues>) =>
  db
    .with('type', () => insertType(db, p))
    .with('links', (creator) =>
      creator.insertInto('resource_type_resources').columns(linkColumns).expression(linkRows(db, sql<number>`(select id from type)`, p))
        .returning(['resource_id', 'priority']))
    .selectFrom('type')
    .selectAll()
    .select((eb) => jsonHelpers(db).array(
      eb.selectFrom('links as l').innerJoin('resources as m', 'm.id', 'l.resource_id').select([...MEMBER_COLUMNS, 'l.priority']).orderBy('m.id'),
    ).as('members_json')),
);

/** SQLite: the links of the type just inserted, answering each with its member resource as a JSON column. */
const insertLinksQuery = prepared((db, p: Placeholders<LinkValues & { typeId: number }>) =>
  db
    .insertInto('resource_type_resources')
    .columns(linkColumns)
    .expression(linkRows(db, sql<number>`${p.typeId}`, p))
    .returning([
      'priority',
      jsonHelpers(db).object(db.selectFrom('resources as m').select(MEMBER_COLUMNS).where('m.id', '=', sql.ref<number>('resource_type_resources.resource_id'))).as('member'),
    ]),
);

/** The values of the links of `resources` (the first of an id listed twice decides its priority). */
function linkValues(companyId: string, resources: readonly NewMember[]): LinkValues {
  const priorities = new Map<number, number | null>();
  for (const r of resources) if (!priorities.has(r.id)) priorities.set(r.id, r.priority ?? null);
  return { companyId, idsJson: JSON.stringify([...priorities.keys()]), prioritiesJson: JSON.stringify(Object.fromEntries(priorities)) };
}

/**
 * Resource types of a company. Takes a Store or a transaction (`{ db: trx }`), so that the
 * writes of one operation and the checks on them run in one transaction (inTransaction).
 */
export function resourceTypesRepository({ db }: { db: Kysely<Database> }) {
  return {
    /**
     * Inserts the type and links to it those of `resources` that are the company's (see
     * linkRows); answers the type with its linked resources (by resource id), undefined
     * when the store holds no such company. Per engine, as the engines differ: PostgreSQL
     * writes both tables in ONE statement (the links a data-modifying CTE selecting the new
     * type's id); SQLite has no data-modifying CTEs, so one INSERT per table. The caller
     * runs it in a transaction, to roll it back when it refuses what was linked.
     */
    async create(input: NewResourceType, resources: readonly NewMember[]): Promise<FullResourceType | undefined> {
      const typeValues: TypeValues = {
        companyId: input.companyId,
        name: input.name,
        description: input.description ?? null,
        active: input.active ? 1 : 0,
        now: input.now,
      };
      if (resources.length > 0 && isPostgres(db)) {
        const row = await insertTypeWithLinksQuery.takeFirst(db, { ...typeValues, ...linkValues(input.companyId, resources) });
        if (!row) return undefined;
        const { members_json, ...type } = row;
        return { type, resources: parseJson(members_json) };
      }
      const type = await insertTypeQuery.takeFirst(db, typeValues);
      if (!type || resources.length === 0) return type && { type, resources: [] };
      const links = await insertLinksQuery.execute(db, { ...linkValues(input.companyId, resources), typeId: type.id });
      const members = links.map(({ priority, member }) => ({ ...parseJson(member)!, priority }));
      return { type, resources: members.sort((a, b) => a.id - b.id) };
    },
  };
}
