import type { FastifySchema } from 'fastify';
import type { JsonSchema } from '../http/coercion.js';
import { contract } from '../http/contract.js';

/**
 * What the plugins need to know of one operation, read from the schema that
 * fastify-openapi-glue built for its route: the schemas of its parts, and the contract's
 * `x-` keys, which the glue copies onto the schema unchanged.
 */
export interface RouteContract {
  operationId: string;
  /** the operation asks for the bearer scheme (its `security`, or the document's) */
  authenticated: boolean;
  /** roles of which the caller needs any one (`x-roles`); empty: any authenticated caller */
  roles: string[];
  /** any authenticated caller may name any company (`x-any-company`) */
  anyCompany: boolean;
  /** the tighter per-caller rate limit applies (`x-rate-limit: strict`) */
  strictRateLimit: boolean;
  /** the operation also speaks CSV (`x-csv`): its answers on request, and its body */
  csv: boolean;
  /** a refused role or company is 403 where the operation declares it, else 401 */
  declares403: boolean;
  /** the webhook events the operation writes (`x-webhook-events`); the first unless the handler names another */
  events: string[];
  /** the operation acts on a company: it takes a CompanyId in its query or body */
  actsOnCompany: boolean;
  params?: JsonSchema;
  query?: JsonSchema;
  /** the JSON schema of the body (a CSV body is read into the same shape) */
  body?: JsonSchema;
  /** the media types a body may be sent in (the declared ones, and text/csv with `x-csv`); empty when the operation takes none */
  bodyMediaTypes: string[];
  /** the CSV columns of the answer: the properties of its item (query) or object schema */
  csvColumns?: string[];
}

interface GlueSchema extends FastifySchema {
  operationId?: string;
  'x-roles'?: string[];
  'x-any-company'?: boolean;
  'x-rate-limit'?: string;
  'x-webhook-events'?: string[];
  'x-csv'?: boolean;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: { content?: Record<string, { schema?: JsonSchema }> };
  response?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/** The route's contract, or undefined for a route the contract does not describe (docs, health). */
export function routeContract(schema: FastifySchema | undefined): RouteContract | undefined {
  const s = schema as GlueSchema | undefined;
  if (!s?.operationId) return undefined;
  const body = s.body?.content?.['application/json']?.schema;
  const ok = s.response?.['200']?.content?.['application/json']?.schema;
  const item = ok?.properties?.Results?.items ?? ok;
  const csv = s['x-csv'] === true;
  return {
    operationId: s.operationId,
    authenticated: asksForBearer(s.operationId),
    roles: s['x-roles'] ?? [],
    anyCompany: s['x-any-company'] === true,
    strictRateLimit: s['x-rate-limit'] === 'strict',
    csv,
    declares403: Object.hasOwn(s.response ?? {}, '403'),
    events: s['x-webhook-events'] ?? [],
    actsOnCompany: Boolean(s.querystring?.properties?.CompanyId ?? body?.properties?.CompanyId),
    params: s.params,
    query: s.querystring,
    body,
    bodyMediaTypes: bodyMediaTypes(Object.keys(s.body?.content ?? {}), csv),
    csvColumns: item?.properties ? Object.keys(item.properties) : undefined,
  };
}

/**
 * The media types an operation's body may be sent in: the contract declares JSON bodies
 * alone, so that clients generated from it type them, and `x-csv` adds CSV, read into the
 * same schema.
 */
export function bodyMediaTypes(declared: string[], csv: boolean): string[] {
  return declared.length > 0 && csv && !declared.includes('text/csv') ? [...declared, 'text/csv'] : declared;
}

let securityByOperation: Map<string, unknown[]> | undefined;

/**
 * Whether the contract's operation asks for credentials (the bearer scheme): its own `security`, or the
 * document's when it has none (OpenAPI's rule). `security: []` asks for nothing. Read from
 * the document itself, as the glue leaves security off the route's schema.
 */
function asksForBearer(operationId: string): boolean {
  if (!securityByOperation) {
    const document = contract().document;
    securityByOperation = new Map();
    for (const item of Object.values<Record<string, any>>(document.paths ?? {})) {
      for (const operation of Object.values<any>(item)) {
        if (operation?.operationId) securityByOperation.set(operation.operationId, operation.security ?? document.security ?? []);
      }
    }
  }
  const requirements = securityByOperation.get(operationId) ?? [];
  // The bearer scheme is the contract's only one; an empty alternative (`{}`) would make it optional.
  return requirements.length > 0 && requirements.every((requirement) => Object.keys(requirement as object).length > 0);
}
