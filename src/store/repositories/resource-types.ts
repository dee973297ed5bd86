import { sql, type Kysely, type RawBuilder } from 'kysely';
import { jsonHelpers, parseJson } from '../json.js';
import { lockRows } from '../locks.js';
import { isPostgres } from '../migrations/helpers.js';
import type { Database, Row } from '../schema.js';
import { transactional } from '../transactions.js';

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

/**
 * Resource types of a company. Takes the Kysely instance (or a transaction) so that the
 * writes of one operation and the checks on them run in one transaction through `transaction`.
 */
export function resourceTypesRepository({ db }: { db: Kysely<Database> }) {
  return transactional(db, resourceTypesQueries);
}

function resourceTypesQueries(db: Kysely<Database>) {
  const json = jsonHelpers(db);

  /** The type's row for the company, selected from the company's row: none when the store holds no such company. */
  const insertType = (input: NewResourceType) =>
    db
      .insertInto('resource_types')
      .columns(['company_id', 'name', 'description', 'active', 'created', 'updated'])
      .expression(
        db.selectFrom('companies').where('id', '=', input.companyId).select((eb) => [
          'id',
          eb.val(input.name).as('name'),
          eb.val(input.description ?? null).as('description'),
          eb.val(input.active ? 1 : 0).as('active'),
          eb.val(input.now).as('created'),
          eb.val(input.now).as('updated'),
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
  const linkRows = (typeId: RawBuilder<number>, companyId: string, resources: readonly NewMember[]) => {
    const priorities = new Map<number, number | null>();
    for (const r of resources) if (!priorities.has(r.id)) priorities.set(r.id, r.priority ?? null);
    // The cast gives PostgreSQL the parameters' type, which a CASE alone leaves it to guess.
    const priority = sql<number | null>`case ${sql.join([...priorities].map(([id, p]) => sql`when r.id = ${id} then cast(${p} as integer)`), sql` `)} end`;
    return db
      .selectFrom('resources as r')
      .select([typeId.as('resource_type_id'), 'r.id', priority.as('priority')])
      .where('r.company_id', '=', companyId)
      .where('r.id', 'in', [...priorities.keys()])
      .$call(lockRows(db, 'key share'));
  };
  const linkColumns = ['resource_type_id', 'resource_id', 'priority'] as const;

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
      if (resources.length > 0 && isPostgres(db)) {
        const row = await db
          .with('type', () => insertType(input))
          .with('links', (creator) =>
            creator.insertInto('resource_type_resources').columns(linkColumns).expression(linkRows(sql<number>`(select id from type)`, input.companyId, resources))
              .returning(['resource_id', 'priority']))
          .selectFrom('type')
          .selectAll()
          .select((eb) => json.array(
            eb.selectFrom('links as l').innerJoin('resources as m', 'm.id', 'l.resource_id').select([...MEMBER_COLUMNS, 'l.priority']).orderBy('m.id'),
          ).as('members_json'))
          .executeTakeFirst();
        if (!row) return undefined;
        const { members_json, ...type } = row;
        return { type, resources: parseJson(members_json) };
      }
      const type = await insertType(input).executeTakeFirst();
      if (!type || resources.length === 0) return type && { type, resources: [] };
      const links = await db
        .insertInto('resource_type_resources')
        .columns(linkColumns)
        .expression(linkRows(sql<number>`${type.id}`, input.companyId, resources))
        .returning([
          'priority',
          json.object(db.selectFrom('resources as m').select(MEMBER_COLUMNS).where('m.id', '=', sql.ref<number>('resource_type_resources.resource_id'))).as('member'),
        ])
        .execute();
      const members = links.map(({ priority, member }) => ({ ...parseJson(member)!, priority }));
      return { type, resources: members.sort((a, b) => a.id - b.id) };
    },
  };
}
