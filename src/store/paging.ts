import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { invalid, refused } from '../domain/refusals.js';
import { prepared, preparedVariants, type Placeholders } from './prepared.js';

/** The common query parameters of the query operations (AutoQuery-style). */
export interface PageRequest {
  Skip?: number | null;
  Take?: number | null;
  OrderBy?: string;
  OrderByDesc?: string;
}

export interface Page<Row> {
  offset: number;
  /** rows matching the filter, whatever the page (a COUNT in SQL) */
  total: number;
  rows: Row[];
}

export const DEFAULT_TAKE = 100;
export const MAX_TAKE = 1000;

/**
 * A column that may hold NULL, in a `sortable` map: ordered NULLS FIRST ascending and NULLS
 * LAST descending, explicitly. SQLite sorts NULL as the smallest value and PostgreSQL as the
 * largest, so without the clause the engines would answer different orders (SQLite reads
 * NULLS FIRST/LAST since 3.30; better-sqlite3 12 bundles 3.53). A NOT NULL
 * column is left without it: the order is the same, and PostgreSQL only walks a default
 * index (ASC NULLS LAST) in order for the default NULLS placement (OrderBy=Name reads
 * the printouts' name index).
 */
export const nullable = (column: string): NullableColumn => ({ column, nullable: true });
export interface NullableColumn {
  column: string;
  nullable: true;
}

/** API field → column (a NullableColumn when it may hold NULL). */
export type Sortable = Record<string, string | NullableColumn>;

export interface Ordering {
  column: string;
  direction: 'asc' | 'desc';
  /** where NULLs go, for a nullable column */
  nulls?: 'first' | 'last';
}

/** Skip and Take as SQL OFFSET and LIMIT: Skip defaults to 0, Take to 100, capped at 1000. */
export function pageWindow(request: PageRequest): { offset: number; limit: number } {
  const offset = Math.max(0, Math.trunc(request.Skip ?? 0));
  const limit = Math.min(Math.max(0, Math.trunc(request.Take ?? DEFAULT_TAKE)), MAX_TAKE);
  return { offset, limit };
}

/**
 * OrderBy and OrderByDesc (comma-separated; a `-` prefix inverts one field; OrderBy's
 * fields first) mapped to columns through `sortable` (API field → column), so no caller
 * text ever reaches SQL. An unknown field is refused (InvalidOrderBy) naming the parameter.
 */
export function parseOrdering(request: PageRequest, sortable: Sortable): Ordering[] {
  const byLowerName = new Map(
    Object.entries(sortable).map(([field, column]) => [field.toLowerCase(), typeof column === 'string' ? { column, nullable: false } : column]),
  );
  const orderings: Ordering[] = [];
  const read = (text: string | undefined, parameter: 'OrderBy' | 'OrderByDesc') => {
    if (!text) return;
    for (const raw of text.split(',')) {
      const item = raw.trim();
      if (!item) continue;
      const inverted = item.startsWith('-');
      const name = inverted ? item.slice(1).trim() : item;
      const known = byLowerName.get(name.toLowerCase());
      if (!known) {
        throw refused(
          invalid(
            'InvalidOrderBy',
            parameter,
            `'${item.slice(0, 100)}' is not a field that ${parameter} can use; use one of: ${Object.keys(sortable).join(', ')}.`,
          ),
        );
      }
      const direction = (parameter === 'OrderByDesc') !== inverted ? 'desc' : 'asc';
      // A column already ordered by decides nothing more; keep the first direction.
      if (orderings.some((o) => o.column === known.column)) continue;
      const nulls = direction === 'asc' ? 'first' : 'last';
      orderings.push({ column: known.column, direction, ...(known.nullable ? { nulls } : {}) });
    }
  };
  read(request.OrderBy, 'OrderBy');
  read(request.OrderByDesc, 'OrderByDesc');
  return orderings;
}

/** The column that carries the filter's row count on every row of a page. */
const TOTAL = 'page_total';
type Counted = Partial<Record<typeof TOTAL, number>>;

/** SQL's window of a page, as values of a prepared query. */
interface PageWindow {
  limit: number;
  offset: number;
}

/** How one paged query reads: see preparedPages. */
export interface PagedQuery<DB, TB extends keyof DB, F extends object, Row> {
  /**
   * Which of the filter's optional conditions apply, as a short key (`id`, `status`): each
   * shape is its own prepared query. Without it the filter has one shape.
   */
  shape?: (filter: F) => string;
  /** The rows the filter selects, for a shape, with a placeholder for each of the filter's values. */
  from: (db: Kysely<DB>, p: Placeholders<F>, shape: string) => SelectQueryBuilder<DB, TB, object>;
  /** What a page's rows select of them. */
  select: (query: SelectQueryBuilder<DB, TB, object>, db: Kysely<DB>) => SelectQueryBuilder<DB, TB, Row>;
  /** API field → column: what OrderBy and OrderByDesc may name */
  sortable: Sortable;
  /** a unique column, ordered by last so that pages are stable */
  tiebreak: string;
}

const orderingKey = (orderings: Ordering[]) => orderings.map((o) => `${o.column} ${o.direction} ${o.nulls ?? ''}`).join(',');

/**
 * Pages of a filtered query, each one prepared statement (prepared.ts): the page's rows
 * (LIMIT/OFFSET) in the requested order, `tiebreak` last so pages are stable, each carrying
 * the filter's total (a `count(*)` subquery). An empty page (past the end, Take=0) gets its
 * total from a COUNT of its own. `from` must not join one-to-many tables (filter them with
 * `exists`), or the total would count duplicates. Text orders by code point, as on SQLite,
 * only where PostgreSQL's collation is C (docs/postgresql.md, "Collation").
 */
export function preparedPages<DB, TB extends keyof DB, F extends object, Row>(spec: PagedQuery<DB, TB, F, Row>) {
  const shapeOf = spec.shape ?? (() => '');
  const counts = preparedVariants(
    (shape: string) => shape,
    (shape) => prepared((db: Kysely<DB>, p: Placeholders<F>) => spec.from(db, p, shape).select(sql<number>`count(*)`.as('total'))),
  );
  const pages = preparedVariants(
    ({ shape, orderings }: { shape: string; orderings: Ordering[] }) => `${shape}|${orderingKey(orderings)}`,
    ({ shape, orderings }) =>
      prepared((db: Kysely<DB>, p: Placeholders<F & PageWindow>) => {
        const filtered = spec.from(db, p, shape);
        // The total as an uncorrelated subquery, run once per statement (SQLite caches it,
        // PostgreSQL makes it an InitPlan): the page itself can then walk an index in order and
        // stop at LIMIT. `count(*) over ()` would count the same, but only after reading and
        // sorting every row of the filter, on each page (bench/results.md, printouts at scale).
        let query = spec.select(filtered, db).select(filtered.select(sql<number>`count(*)`.as('total')).$asScalar().as(TOTAL));
        for (const { column, direction, nulls } of orderings) {
          query = query.orderBy(sql.ref(column), (item) => {
            const directed = direction === 'asc' ? item.asc() : item.desc();
            return nulls === 'first' ? directed.nullsFirst() : nulls === 'last' ? directed.nullsLast() : directed;
          });
        }
        if (!orderings.some((o) => o.column === spec.tiebreak)) query = query.orderBy(sql.ref(spec.tiebreak), 'asc');
        return query.limit(p.limit).offset(p.offset);
      }),
  );

  return async (db: Kysely<DB>, filter: F, request: PageRequest): Promise<Page<Row>> => {
    const orderings = parseOrdering(request, spec.sortable);
    const { offset, limit } = pageWindow(request);
    const shape = shapeOf(filter);
    const count = async () => Number(((await counts(shape).takeFirst(db, filter)) as { total?: number } | undefined)?.total ?? 0);
    if (limit === 0) return { offset, total: await count(), rows: [] };
    const rows = (await pages({ shape, orderings }).execute(db, { ...filter, limit, offset })) as Array<Row & Counted>;
    if (rows.length === 0) return { offset, total: offset === 0 ? 0 : await count(), rows: [] };
    // PostgreSQL's count is a bigint, read as a number by the engine (engines/postgres.ts).
    const total = Number(rows[0][TOTAL]);
    for (const row of rows) delete row[TOTAL];
    return { offset, total, rows };
  };
}
