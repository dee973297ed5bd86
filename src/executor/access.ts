import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { notEmpty, refused } from '../domain/refusals.js';
import { forbidden, unauthorized } from '../http/errors.js';
import type { OperationFacts } from './operations.js';

const noCompany = () => unauthorized('The bearer token names no company for the caller.');

const requested = (source: unknown): string | undefined => {
  const value = (source as Record<string, unknown> | undefined)?.CompanyId;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

/**
 * The one access step of an operation, from its facts: its roles, whether it declares 403,
 * and whether it may act on any company. It runs once the fields are bound (wherever the
 * caller sent CompanyId: query, body or both) and before they are validated, so a caller
 * refused here never learns whether its request was valid. Answers the company the call acts
 * on (blank or omitted means the caller's), or undefined where the operation acts on none.
 */
export function authorize(facts: OperationFacts, caller: Caller | undefined, query: unknown, body: unknown): string | undefined {
  const refuse = () => (facts.declares403 ? forbidden() : unauthorized('The caller is not allowed to perform this operation.'));
  if (facts.authenticated && !caller) throw unauthorized();
  if (caller && facts.roles.length > 0 && !facts.roles.some((role) => caller.roles.has(role))) throw refuse();
  if (!facts.actsOnCompany) return undefined;
  const asked = [requested(query), requested(body)].filter((c) => c !== undefined);
  const superadmin = caller?.roles.has(SUPERADMIN) ?? false;
  if (caller && !facts.anyCompany && !superadmin) {
    // A token that names no company lacks what an operation on "the caller's company" needs.
    if (caller.companyId === undefined) throw noCompany();
    if (asked.some((company) => company.trim().toLowerCase() !== caller.companyId)) throw refuse();
  }
  const company = asked[0] ?? caller?.companyId;
  // Neither the request nor the token names one: 401 for a caller (a superadmin without a
  // company), 400 for an anonymous call.
  if (!company) throw caller ? noCompany() : refused(notEmpty('CompanyId'));
  return company.toLowerCase();
}
