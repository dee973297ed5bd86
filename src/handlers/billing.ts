import { billingMethodsRepository, type BillingMethodRow } from '../store/repositories/billing-methods.js';
import { opt, type Answer } from '../store/prepared.js';
import { envelope } from './query.js';
import type { HandlersOf, Schemas } from './types.js';

type BillingMethod = Schemas['BillingMethodResponse'];

/** Countries is always a list (empty when the method names no country). */
export const toBillingMethod = (row: BillingMethodRow) =>
  ({ Id: row.id, Name: row.name, Description: opt(row.description), Countries: row.countries } satisfies Answer<BillingMethod>);

export const billingHandlers: HandlersOf<'BillingMethodQuery'> = {
  /** Global reference data: any authenticated caller, no company scoping. */
  async BillingMethodQuery({ query, store }) {
    const page = await billingMethodsRepository(store).query({ countryId: query.CountryId }, query);
    return envelope(page, toBillingMethod);
  },
};
