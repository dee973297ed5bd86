import { invalid, refused, type Refusal } from '../domain/refusals.js';

/**
 * A write that creates a company's row must name a company the store holds: a superadmin
 * may name any CompanyId, and a token any company, so one that names no company is the
 * request's fault (400), not a foreign-key failure.
 */
export const unknownCompany = (companyId: string): Refusal =>
  refused(invalid('UnknownCompany', 'CompanyId', `Company ${companyId} does not exist.`));
