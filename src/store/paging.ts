import { sql, type SelectQueryBuilder } from 'kysely';
import { invalid, refused } from '../domain/refusals.js';

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
  /**
   * The API fields the query could order by (its sortable columns): the envelope's
   * fallback list of known item fields when a handler names none.
   */
  fields: string[];
}

export const DEFAULT_TAKE = 100;
export const MAX_TAKE = 1000;

export interface Ordering {
  column: string;
  direction: 'asc' | 'desc';
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
export function parseOrdering(request: PageRequest, sortable: Record<string, string>): Ordering[] {
  const byLowerName = new Map(Object.entries(sortable).map(([field, column]) => [field.toLowerCase(), column]));
  const orderings: Ordering[] = [];
  const read = (text: string | undefined, parameter: 'OrderBy' | 'OrderByDesc') => {
    if (!text) return;
    for (const raw of text.split(',')) {
      const item = raw.trim();
      if (!item) continue;
      const inverted = item.startsWith('-');
      const name = inverted ? item.slice(1).trim() : item;
      const column = byLowerName.get(name.toLowerCase());
      if (!column) {
        throw refused(
          invalid(
            'InvalidOrderBy',
            parameter,
            `'${item.slice(0, 100)}' is not a field that ${parameter} can use; use one of: ${Object.keys(sortable).join(', ')}.`,
          ),
        );
      }
      const descending = (parameter === 'OrderByDesc') !== inverted;
      // A column already ordered by decides nothing more; keep the first direction.
      if (!orderings.some((o) => o.column === column)) orderings.push({ column, direction: descending ? 'desc' : 'asc' });
    }
  };
  read(request.OrderBy, 'OrderBy');
  read(request.OrderByDesc, 'OrderByDesc');
  return orderings;
}

/**
 * One page of a filtered query, in SQL: a COUNT of the filter, then the rows of the page
 * (LIMIT/OFFSET) in the requested order with `tiebreak` (a unique column) last, so pages
 * are stable. The ordering is checked before anything runs. `filtered` must not join
 * one-to-many tables (filter them with `exists`), or the count would count duplicates.
 */
export async function fetchPage<DB, TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  select: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  request: PageRequest,
  sortable: Record<string, string>,
  tiebreak: string,
): Promise<Page<Row>> {
  const orderings = parseOrdering(request, sortable);
  const { offset, limit } = pageWindow(request);
  const fields = Object.keys(sortable);
  const counted = await filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow();
  // PostgreSQL answers count(*) as a bigint string; SQLite as a number.
  const total = Number((counted as { total: number | string }).total);
  if (limit === 0 || offset >= total) return { offset, total, rows: [], fields };
  let query = select(filtered);
  for (const { column, direction } of orderings) query = query.orderBy(sql.ref(column), direction);
  if (!orderings.some((o) => o.column === tiebreak)) query = query.orderBy(sql.ref(tiebreak), 'asc');
  const rows = await query.limit(limit).offset(offset).execute();
  return { offset, total, rows: rows as Row[], fields };
}
