import { printoutsRepository, type PrintoutRow } from '../store/repositories/printouts.js';
import { opt, type Answer } from '../store/prepared.js';
import { envelope } from './query.js';
import type { HandlersOf, Schemas } from './types.js';

type Printout = Schemas['PrintoutQueryResponse'];

/** Empty cells are stored as SQL null and omitted, like every null of the API. */
export const toPrintout = (row: PrintoutRow) =>
  ({
    Id: row.id,
    Name: row.name,
    HeaderLeftCell: opt(row.header_left_cell), HeaderMiddleCell: opt(row.header_middle_cell), HeaderRightCell: opt(row.header_right_cell),
    BodyCell: opt(row.body_cell),
    FooterLeftCell: opt(row.footer_left_cell), FooterMiddleCell: opt(row.footer_middle_cell), FooterRightCell: opt(row.footer_right_cell),
  } satisfies Answer<Printout>);

export const reportHandlers: HandlersOf<'BookingPrintoutQuery'> = {
  /** The company's printouts (roles and company scoping are checked by the framework). */
  async BookingPrintoutQuery({ query, companyId, store }) {
    const page = await printoutsRepository(store).query(companyId, { id: query.Id }, query);
    return envelope(page, toPrintout);
  },
};
