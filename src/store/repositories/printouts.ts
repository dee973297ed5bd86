import type { Store } from '../db.js';
import { fetchPage, nullable, type Page, type PageRequest } from '../paging.js';
import type { Row } from '../schema.js';

export type PrintoutRow = Row<'printouts'>;

/** Every PrintoutQueryResponse field is a column, so every field can order the query; the cells may be empty (NULL). */
const sortable = {
  Id: 'id',
  Name: 'name',
  HeaderLeftCell: nullable('header_left_cell'),
  HeaderMiddleCell: nullable('header_middle_cell'),
  HeaderRightCell: nullable('header_right_cell'),
  BodyCell: nullable('body_cell'),
  FooterLeftCell: nullable('footer_left_cell'),
  FooterMiddleCell: nullable('footer_middle_cell'),
  FooterRightCell: nullable('footer_right_cell'),
};

/** Booking printout layouts of a company. */
export function printoutsRepository({ db }: Store) {
  return {
    /** One page of the company's printouts; the (company_id, id) index serves the filter. */
    query(companyId: string, filter: { id?: number }, request: PageRequest): Promise<Page<PrintoutRow>> {
      let filtered = db.selectFrom('printouts').where('company_id', '=', companyId);
      if (filter.id !== undefined) filtered = filtered.where('id', '=', filter.id);
      return fetchPage(filtered, (q) => q.selectAll(), request, sortable, 'id');
    },
  };
}
