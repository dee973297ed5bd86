import type { FastifyRequest } from 'fastify';
import { coerceToSchema, define, isRecord, propertiesOf, type JsonSchema } from './coercion.js';
import { isPredefinedRoute } from './servicestack-routes.js';

/**
 * Request binding as ServiceStack does it (docs/decisions.md, "Wire format"): a ServiceStack request is
 * one object, whose fields may come from the path, the query string or the body, on any
 * method; the path wins over the query string, the query string over the body. The contract
 * puts each field in one place (path, query or body); here a field sent in another place is
 * moved to the contract's, before validation, so that everything after (authorization,
 * validation, handlers) sees the request as the contract describes it. Names match in any
 * case; unknown names are left where they are and ignored, as ServiceStack ignores them.
 */

/** An operation's schemas, as the route's contract holds them. */
export interface RequestSchemas {
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
}

/** The field names of an operation's request, in the place the contract puts each, by lower-cased name. */
export interface RequestFields {
  params: Map<string, string>;
  query: Map<string, string>;
  body: Map<string, string>;
}

const byLowerName = (schema: JsonSchema | undefined) =>
  new Map(Object.keys((schema && propertiesOf(schema)) ?? {}).map((name) => [name.toLowerCase(), name]));

export function requestFields(schemas: RequestSchemas): RequestFields {
  const query = byLowerName(schemas.query);
  // The response format is chosen from the URL and headers before anything is read
  // (negotiation.ts): a `format` field of a body is not that parameter.
  query.delete('format');
  return { params: byLowerName(schemas.params), query, body: byLowerName(schemas.body) };
}

/** Body fields sent in the query string, from the path-and-query step to the body step. */
const bodyFieldsInQuery = new WeakMap<FastifyRequest, Record<string, unknown>>();

/** The keys of `source` with those spelled exactly as a field first, so that the exact spelling wins. */
function exactFirst(source: Record<string, unknown>, fields: RequestFields): string[] {
  const exact = (key: string) => [fields.params, fields.query, fields.body].some((names) => names.get(key.toLowerCase()) === key);
  const keys = Object.keys(source);
  return [...keys.filter(exact), ...keys.filter((key) => !exact(key))];
}

/**
 * Before the body is read: path parameters that are not in the path (a predefined route
 * has none there) come from the query string; query values that name body fields are kept
 * for the body. Then the path and the query string take their schemas' types.
 */
export function bindPathAndQuery(schemas: RequestSchemas, fields: RequestFields, request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  const params: Record<string, unknown> = isPredefinedRoute(request.raw) ? {} : { ...(request.params as object) };
  const inPath = new Set(Object.keys(params));
  const forBody: Record<string, unknown> = {};
  for (const key of exactFirst(query, fields)) {
    const lower = key.toLowerCase();
    if (fields.query.has(lower)) continue;
    const param = fields.params.get(lower);
    const field = param === undefined ? fields.body.get(lower) : undefined;
    if (param === undefined && field === undefined) continue;
    const value = query[key];
    delete query[key];
    if (param !== undefined) {
      if (!inPath.has(param) && !Object.hasOwn(params, param)) define(params, param, value);
    } else if (!Object.hasOwn(forBody, field!)) {
      define(forBody, field!, value);
    }
  }
  if (Object.keys(forBody).length > 0) bodyFieldsInQuery.set(request, forBody);
  request.params = schemas.params ? coerceToSchema(params, schemas.params) : params;
  if (schemas.query) request.query = coerceToSchema(query, schemas.query);
}

/**
 * After the body is parsed: its members that name path or query parameters become those
 * parameters where the path or query string did not give them; body fields sent in the
 * query string go into the body, over the body's own values. An operation without a body
 * keeps none. Returns true when the body was made from the query string alone (no body was
 * sent), so that it is validated although it came in no media type.
 */
export function bindBody(schemas: RequestSchemas, fields: RequestFields, request: FastifyRequest): boolean {
  const body = request.body;
  if (isRecord(body)) {
    const params = request.params as Record<string, unknown>;
    const query = request.query as Record<string, unknown>;
    for (const key of exactFirst(body, fields)) {
      const lower = key.toLowerCase();
      if (fields.body.has(lower)) continue;
      const param = fields.params.get(lower);
      const [target, name] = param !== undefined ? [params, param] : [query, fields.query.get(lower)];
      if (name === undefined) continue;
      if (!Object.hasOwn(target, name)) define(target, name, body[key]);
      delete body[key];
    }
    if (schemas.params) request.params = coerceToSchema(params, schemas.params);
    if (schemas.query) request.query = coerceToSchema(query, schemas.query);
  }
  if (!schemas.body) {
    request.body = undefined;
    return false;
  }
  const fromQuery = bodyFieldsInQuery.get(request);
  if (!fromQuery) return false;
  if (body === undefined || body === null) {
    request.body = fromQuery;
    return true;
  }
  if (isRecord(body)) {
    for (const [name, value] of Object.entries(fromQuery)) {
      for (const key of Object.keys(body)) if (key.toLowerCase() === name.toLowerCase()) delete body[key];
      define(body, name, value);
    }
  }
  return false;
}
