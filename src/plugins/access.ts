import type { FastifyRequest } from 'fastify';
import { SUPERADMIN, type Caller } from '../auth/authenticate.js';
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
 * Authorization of one operation, from its contract: `x-roles`, whether it declares 403,
 * and whether it may act on any company (`x-any-company`). The roles and a query
 * CompanyId are checked right after authentication, before the body is read; a body
 * CompanyId right after parsing, before validation. So an unauthenticated or unauthorized
 * caller never learns whether its body was valid. After validation the company the call
 * acts on is resolved once, onto the request; handlers receive it as a value.
 */
export function accessHooks(route: RouteContract) {
  const refuse = () =>
    route.declares403 ? forbidden() : unauthorized('The caller is not allowed to perform this operation.');

  const checkCompany = (caller: Caller, company: string | undefined): void => {
    if (route.anyCompany || caller.roles.has(SUPERADMIN) || company === undefined) return;
    if (company.trim().toLowerCase() !== caller.companyId) throw refuse();
  };

  return {
    authorize(request: FastifyRequest): void {
      const caller = request.caller;
      if (!caller) return;
      if (route.roles.length > 0 && !route.roles.some((role) => caller.roles.has(role))) throw refuse();
      // A caller whose token names no company lacks what an operation on "the caller's
      // company" requires: refused as unauthenticated, before anything of the request is read.
      if (route.actsOnCompany && !route.anyCompany && caller.companyId === undefined && !caller.roles.has(SUPERADMIN)) {
        throw noCompany();
      }
      checkCompany(caller, requested(request.query));
    },

    authorizeBody(request: FastifyRequest): void {
      if (request.caller) checkCompany(request.caller, requested(request.body));
    },

    /**
     * Blank or omitted means the caller's company. When neither the request nor the token
     * names one: 401 for a caller (a superadmin without a company), 400 for an anonymous call.
     */
    resolveCompany(request: FastifyRequest): void {
      if (!route.actsOnCompany) return;
      const company = requested(request.query) ?? requested(request.body) ?? request.caller?.companyId;
      if (!company) throw request.caller ? noCompany() : refused(notEmpty('CompanyId'));
      request.companyId = company.toLowerCase();
    },
  };
}
