import type { Kysely } from 'kysely';
import type { Database, Row } from '../schema.js';
import { transactional } from '../transactions.js';
import { companiesRepository } from './companies.js';

export type ResourceTypeRow = Row<'resource_types'>;
/** A member resource of a type, with the type's priority for it. */
export type MemberRow = Row<'resources'> & { priority: number | null };
export type FullResourceType = { type: ResourceTypeRow; resources: MemberRow[] };

export interface NewResourceType {
  companyId: string;
  name: string;
  description?: string;
  active: boolean;
  /** Already checked to be the company's resources, each listed once. */
  resources: { id: number; priority?: number }[];
  now: string;
}

/**
 * Resource types of a company. Takes the Kysely instance (or a transaction) so that the
 * checks and the writes of one operation run in one transaction through `transaction`.
 */
export function resourceTypesRepository({ db }: { db: Kysely<Database> }) {
  return transactional(db, resourceTypesQueries);
}

function resourceTypesQueries(db: Kysely<Database>) {
  return {
    companies: companiesRepository({ db }),

    /** Those of `ids` that are resources of the company. */
    async companyResourceIds(companyId: string, ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('resources')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', 'in', [...new Set(ids)])
        .execute();
      return new Set(rows.map((r) => r.id));
    },

    /** Inserts the type and its resource links; answers it with its resources (ordered by resource id). */
    async create(input: NewResourceType): Promise<FullResourceType> {
      const type = await db
        .insertInto('resource_types')
        .values({
          company_id: input.companyId,
          name: input.name,
          description: input.description ?? null,
          active: input.active ? 1 : 0,
          created: input.now,
          updated: input.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (input.resources.length > 0) {
        await db
          .insertInto('resource_type_resources')
          .values(input.resources.map((r) => ({ resource_type_id: type.id, resource_id: r.id, priority: r.priority ?? null })))
          .execute();
      }
      const resources = await db
        .selectFrom('resources as r')
        .innerJoin('resource_type_resources as l', 'l.resource_id', 'r.id')
        .selectAll('r')
        .select('l.priority')
        .where('l.resource_type_id', '=', type.id)
        .orderBy('r.id')
        .execute();
      return { type, resources };
    },
  };
}
