import type { FastifyReply, FastifyRequest } from 'fastify';
import { SUPERADMIN, type Authenticate, type Caller } from '../auth/authenticate.js';
import type { OperationInfo } from './contract.js';
import { badRequest, forbidden, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** the company the call acts on: the CompanyId given, or the caller's */
    companyId?: string;
  }
}

/**
 * Authentication and authorization of one operation, derived from the contract:
 * its security requirement, its `x-roles`, whether it declares 403, and whether it
 * may act on any company (`x-any-company`). Authentication, roles and a query
 * CompanyId are checked before the body is read (preParsing, after the rate limits of
 * onRequest); a body CompanyId right after parsing, before validation. So an unauthenticated or unauthorized caller
 * never learns whether its body was valid.
 */
export function accessHooks(op: OperationInfo, authenticate: Authenticate) {
  const refuse = () =>
    op.statuses.has(403)
      ? forbidden()
      : unauthorized('The caller is not allowed to perform this operation.');

  const checkCompany = (caller: Caller, requested: unknown): void => {
    if (op.anyCompany || caller.roles.has(SUPERADMIN)) return;
    if (typeof requested !== 'string' || requested.trim() === '') return;
    if (requested.trim().toLowerCase() !== caller.companyId) throw refuse();
  };

  const authenticateRequest = async (request: FastifyRequest) => {
    if (!op.secured) return;
    const caller = await authenticate(request.headers.authorization);
    request.caller = caller;
    if (op.roles.length > 0 && !op.roles.some((role) => caller.roles.has(role))) throw refuse();
    checkCompany(caller, (request.query as Record<string, unknown>)?.CompanyId);
  };

  const preValidation = async (request: FastifyRequest, _reply: FastifyReply) => {
    const body = request.body as Record<string, unknown> | undefined;
    const caller = request.caller;
    if (caller && body && typeof body === 'object') checkCompany(caller, body.CompanyId);
  };

  return { authenticate: authenticateRequest, preValidation };
}

/** The company a validated request acts on; 400 when neither request nor token names one. */
export function resolveCompany(request: FastifyRequest): string {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.CompanyId;
  const fromBody = (request.body as Record<string, unknown> | undefined)?.CompanyId;
  for (const value of [fromQuery, fromBody]) {
    if (typeof value === 'string' && value.trim() !== '') return value.trim().toLowerCase();
  }
  if (request.caller?.companyId) return request.caller.companyId;
  throw badRequest('NotEmpty', "'Company Id' must not be empty.", 'CompanyId');
}
