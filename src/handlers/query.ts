import type { Page } from '../store/paging.js';

/**
 * The QueryResponse envelope: Offset (= Skip), Total (of the filter, not the page) and the
 * page's Results. The request's `Fields` and `Meta` shape the answer on its way out, in
 * whichever format (plugins/routes.ts), so a handler reads neither.
 */
export function envelope<Row, Item extends object>(
  page: Page<Row>,
  toItem: (row: Row) => Item,
): { Offset: number; Total: number; Results: Item[] } {
  return { Offset: page.offset, Total: page.total, Results: page.rows.map(toItem) };
}
