import { coerceToSchema, define, isRecord, propertiesOf, type JsonSchema } from '../contract/coercion.js';

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
  // (reading.ts): a `format` field of a body is not that parameter.
  query.delete('format');
  return { params: byLowerName(schemas.params), query, body: byLowerName(schemas.body) };
}

/** A request's fields as the transport read them: the path, the query string and the body. */
export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** came by a predefined route (`/api/{OperationId}`): no path parameter is in its path */
  predefined?: boolean;
}

/** The keys of `source` with those spelled exactly as a field first, so that the exact spelling wins. */
function exactFirst(source: Record<string, unknown>, fields: RequestFields): string[] {
  const exact = (key: string) => [fields.params, fields.query, fields.body].some((names) => names.get(key.toLowerCase()) === key);
  const keys = Object.keys(source);
  return [...keys.filter(exact), ...keys.filter((key) => !exact(key))];
}

/**
 * Moves each field to the contract's place and gives the path, the query string and the
 * body their schemas' types. Path parameters that are not in the path (a predefined route
 * has none there) come from the query string, then the body; query values that name body
 * fields go into the body, over its own values; body members that name parameters become
 * those parameters where the path or query string did not give them. An operation without a
 * body keeps none. Returns true when the body was made from the query string alone (no body
 * was sent).
 */
export function bindRequest(schemas: RequestSchemas, fields: RequestFields, parts: RequestParts): boolean {
  const query = { ...parts.query };
  const params: Record<string, unknown> = parts.predefined ? {} : { ...parts.params };
  const inPath = new Set(Object.keys(params));
  const fromQuery: Record<string, unknown> = {};
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
    } else if (!Object.hasOwn(fromQuery, field!)) {
      define(fromQuery, field!, value);
    }
  }
  const body = parts.body;
  if (isRecord(body)) {
    for (const key of exactFirst(body, fields)) {
      const lower = key.toLowerCase();
      if (fields.body.has(lower)) continue;
      const param = fields.params.get(lower);
      const [target, name] = param !== undefined ? [params, param] : [query, fields.query.get(lower)];
      if (name === undefined) continue;
      if (!Object.hasOwn(target, name)) define(target, name, body[key]);
      delete body[key];
    }
  }
  parts.params = schemas.params ? (coerceToSchema(params, schemas.params) as Record<string, unknown>) : params;
  parts.query = schemas.query ? (coerceToSchema(query, schemas.query) as Record<string, unknown>) : query;
  if (!schemas.body) {
    parts.body = undefined;
    return false;
  }
  let assembled = false;
  if (Object.keys(fromQuery).length > 0 && (body === undefined || body === null)) {
    parts.body = fromQuery;
    assembled = true;
  } else if (isRecord(body)) {
    for (const [name, value] of Object.entries(fromQuery)) {
      for (const key of Object.keys(body)) if (key.toLowerCase() === name.toLowerCase()) delete body[key];
      define(body, name, value);
    }
  }
  if (isRecord(parts.body)) {
    // CSV cells and fields in other places take the schema's types; a blank CompanyId means "the caller's company".
    const typed = coerceToSchema(parts.body, schemas.body) as Record<string, unknown>;
    if (typeof typed.CompanyId === 'string' && typed.CompanyId.trim() === '') delete typed.CompanyId;
    parts.body = typed;
  }
  return assembled;
}
