import type { Store } from '../db.js';
import { nullable, preparedPages, type Page, type PageRequest } from '../paging.js';
import type { Database, Row } from '../schema.js';

export type PrintoutRow = Row<'printouts'>;

interface PrintoutFilter {
  companyId: string;
  id?: number;
}

/** One page of a company's printouts; the (company_id, id) index serves the filter. */
const pages = preparedPages<Database, 'printouts', PrintoutFilter, PrintoutRow>({
  shape: (filter) => (filter.id !== undefined ? 'id' : ''),
  from: (db, p, shape) => {
    const own = db.selectFrom('printouts').where('company_id', '=', p.companyId);
    return shape === 'id' ? own.where('id', '=', p.id!) : own;
  },
  select: (q) => q.selectAll(),
  // Every PrintoutQueryResponse field is a column, so every field can order the query; the cells may be empty (NULL).
  sortable: {
    Id: 'id',
    Name: 'name',
    HeaderLeftCell: nullable('header_left_cell'),
    HeaderMiddleCell: nullable('header_middle_cell'),
    HeaderRightCell: nullable('header_right_cell'),
    BodyCell: nullable('body_cell'),
    FooterLeftCell: nullable('footer_left_cell'),
    FooterMiddleCell: nullable('footer_middle_cell'),
    FooterRightCell: nullable('footer_right_cell'),
  },
  tiebreak: 'id',
});

/** Booking printout layouts of a company. */
export function printoutsRepository({ db }: Store) {
  return {
    query: (companyId: string, filter: { id?: number }, request: PageRequest): Promise<Page<PrintoutRow>> =>
      pages(db, { companyId, id: filter.id }, request),
  };
}
