import type { Migration } from 'kysely';

/**
 * BookingPrintoutQuery ordered by Name (OrderBy=Name, the order a report list is shown in):
 * the (company_id, name, id) index gives the company's printouts in that order, id as the
 * tiebreak, so a page is read from the index instead of sorting every printout of the
 * company for each page.
 */
export const printoutNameOrder: Migration = {
  async up(db) {
    await db.schema.createIndex('printouts_company_name_idx').on('printouts').columns(['company_id', 'name', 'id']).execute();
  },
  async down(db) {
    await db.schema.dropIndex('printouts_company_name_idx').ifExists().execute();
  },
};
