import { demoClock } from './demo-data/clock.js';
import { customFields } from './demo-data/custom-fields.js';
import { servicesAndCustomers } from './demo-data/customers.js';
import { messagesWebhooksUsage } from './demo-data/messages.js';
import { articlesAndRebateCodes } from './demo-data/rebate-codes.js';
import { referenceData } from './demo-data/reference.js';
import { resourcesAndBookings } from './demo-data/resources.js';

export { DEMO_COMPANY_A, DEMO_COMPANY_B, DEMO_CUSTOMERS, DEMO_IDS, DEMO_REBATE_CODES } from './demo-data/ids.js';

/**
 * The demo data set `npm start` loads into an empty store: two companies whose data lets
 * every one of the thirteen operations be tried at once. Dates are relative to the moment
 * the set is built (./demo-data/clock.ts), so the demo stays meaningful whenever it is
 * loaded. The rows are in ./demo-data by area; the ids worth knowing in ./demo-data/ids.ts.
 * It is data alone: the import loads it (src/import/demo-data.ts).
 */

/** The demo data set as an import file, with dates relative to `now`. */
export function buildDemoData(now: Date = new Date()) {
  const clock = demoClock(now);
  return {
    ...referenceData(clock),
    ...servicesAndCustomers(clock),
    ...resourcesAndBookings(clock),
    ...customFields(),
    ...articlesAndRebateCodes(clock),
    ...messagesWebhooksUsage(clock),
  };
}

/** The demo data set as built when this module was loaded. */
export const demoData = buildDemoData();
