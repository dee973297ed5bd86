import type { FastifyRequest } from 'fastify';
import type { Authenticate } from '../auth/authenticate.js';
import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { notEmpty, refused } from '../domain/refusals.js';
import { forbidden, unauthorized } from '../http/errors.js';
import type { RouteContract } from './route-contract.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** the company the call acts on: the CompanyId given, or the caller's */
    companyId?: string;
  }
}

const noCompany = () => unauthorized('The bearer token names no company for the caller.');

const requested = (source: unknown): string | undefined => {
  const value = (source as Record<string, unknown> | undefined)?.CompanyId;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

/**
 * Authentication of an operation whose contract asks for the bearer scheme (`security`):
 * the token is verified before the body is read, so a caller without valid credentials
 * learns nothing of what its body would have done. An operation that asks for none
 * (`security: []`) serves every caller and reads no token.
 */
export function authentication(route: RouteContract, authenticate: Authenticate) {
  if (!route.authenticated) return undefined;
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = await authenticate(request.headers.authorization);
  };
}

/**
 * The one access step of an operation, from its contract: `x-roles`, whether it declares 403,
 * and whether it may act on any company (`x-any-company`). It runs once the fields are bound
 * (wherever the caller sent CompanyId: query, body or both) and before they are validated,
 * so a caller refused here never learns whether its request was valid. It leaves the
 * company the call acts on resolved onto the request: blank or omitted means the caller's.
 */
export function access(route: RouteContract) {
  const refuse = () =>
    route.declares403 ? forbidden() : unauthorized('The caller is not allowed to perform this operation.');

  return (request: FastifyRequest): void => {
    const caller = request.caller;
    if (caller && route.roles.length > 0 && !route.roles.some((role) => caller.roles.has(role))) throw refuse();
    if (!route.actsOnCompany) return;
    const asked = [requested(request.query), requested(request.body)].filter((c) => c !== undefined);
    const superadmin = caller?.roles.has(SUPERADMIN) ?? false;
    if (caller && !route.anyCompany && !superadmin) {
      // A token that names no company lacks what an operation on "the caller's company" needs.
      if (caller.companyId === undefined) throw noCompany();
      if (asked.some((company) => company.trim().toLowerCase() !== caller.companyId)) throw refuse();
    }
    const company = asked[0] ?? caller?.companyId;
    // Neither the request nor the token names one: 401 for a caller (a superadmin without a
    // company), 400 for an anonymous call.
    if (!company) throw caller ? noCompany() : refused(notEmpty('CompanyId'));
    request.companyId = company.toLowerCase();
  };
}
