import { invalid, refused, type FieldError } from '../domain/refusals.js';
import { coerceToSchema, define, isRecord, propertiesOf, type JsonSchema } from './coercion.js';
import { parseJsv, toJsv, type JsvValue } from './jsv.js';

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

// A query's `Fields` and `Meta` shape its answer rather than select its rows; the contract
// declares both as text (Meta also as a map), so they are read here once the request is valid.

/**
 * The item fields that `Fields` (a comma-separated list) names, in the order of `known`,
 * the item's field names, matched case-insensitively; undefined (every field) when it
 * names none of them, as ServiceStack ignores unknown names.
 */
export function selectedFields(fields: string, known: readonly string[]): string[] | undefined {
  const wanted = new Set(fields.split(',').map((f) => f.trim().toLowerCase()));
  const selected = known.filter((name) => wanted.has(name.toLowerCase()));
  return selected.length > 0 ? selected : undefined;
}

const isMap = (value: JsvValue): value is { [key: string]: JsvValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request's Meta as a map, undefined when it holds nothing. Clients that send no
 * deepObject maps (and ServiceStack's own) write it as one text, `{key:value}` in JSV or
 * JSON; a value nested in that text keeps its JSV text, as a string map holds it, and an
 * empty one is left out. A text that is no map is refused, naming Meta.
 */
export function requestMeta(meta: Record<string, string> | string): Record<string, string> | undefined {
  const entries = typeof meta === 'string' ? metaText(meta) : Object.entries(meta);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function metaText(text: string): [string, string][] {
  let value: JsvValue;
  try {
    value = parseJsv(text);
  } catch {
    value = null;
  }
  if (!isMap(value)) throw refused(invalid('InvalidType', 'Meta', (name) => `${name} must be a map of strings: {key:value}.`));
  return Object.entries(value).flatMap(([key, item]): [string, string][] =>
    item === null ? [] : [[key, typeof item === 'string' ? item : toJsv(item)]],
  );
}

/**
 * No text the service is given may hold U+0000 (NUL): PostgreSQL cannot store it in a text
 * column (SQLSTATE 22021), and what one engine cannot store the other must not accept
 * either, so that every operation behaves the same on both. Checked once for every request
 * (executor/run.ts) and once for every import item (import/validate.ts).
 */
const NUL = '\u0000';

/** A value met in the walk: where it sits (its parent's entry and its key there). */
interface Place {
  parent: number;
  key: string | number;
}

/** `Customer.Firstname`, `EventTypes[2]`: the path of entry `at`, built only for a text that is refused. */
function pathOf(places: Place[], at: number): string {
  const segments: string[] = [];
  for (let place = places[at]; place.parent >= 0; place = places[place.parent]) {
    segments.push(typeof place.key === 'number' ? `[${place.key}]` : place.key);
  }
  return segments.reverse().reduce((path, segment) => (path === '' || segment.startsWith('[') ? path + segment : `${path}.${segment}`), '');
}

/**
 * One InvalidCharacter error for each text in `value` (path, query, body or import item,
 * nested objects and lists included) that holds a NUL, in document order, named by its
 * path as FieldName. Walked with a stack of its own, not recursion: a body may nest
 * thousands of levels deep, and only the schema, checked later, refuses that.
 */
export function nulCharacterErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const places: Place[] = [{ parent: -1, key: '' }];
  const pending: Array<[value: unknown, at: number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes(NUL)) errors.push(invalid('InvalidCharacter', pathOf(places, at), (name) => `${name} must not contain the NUL character.`));
    } else if (item !== null && typeof item === 'object') {
      const entries: Array<[string | number, unknown]> = Array.isArray(item) ? item.map((v, i) => [i, v]) : Object.entries(item);
      // Pushed last to first, so that they are met first to last.
      for (let i = entries.length - 1; i >= 0; i--) {
        places.push({ parent: at, key: entries[i][0] });
        pending.push([entries[i][1], places.length - 1]);
      }
    }
  }
  return errors;
}

/**
 * An answer shaped by the query's `Fields` and `Meta` where the operation declares them:
 * `Fields` fills only the fields it names, in JSON and CSV alike, and `Meta` is echoed;
 * elsewhere they are unknown names, ignored. Answers the columns CSV writes of it.
 */
export function shapeAnswer(schemas: RequestSchemas, columns: string[] | undefined, query: Record<string, unknown>, result: unknown): string[] | undefined {
  if (query.Fields === undefined && query.Meta === undefined) return columns;
  const declared = (schemas.query && propertiesOf(schemas.query)) ?? {};
  const selected = typeof query.Fields === 'string' && columns && declared.Fields ? selectedFields(query.Fields, columns) : undefined;
  if (query.Meta !== undefined && declared.Meta) {
    const meta = requestMeta(query.Meta as Record<string, string> | string);
    if (meta) (result as { Meta?: Record<string, string> }).Meta = meta;
  }
  const envelope = result as { Results?: unknown };
  if (selected && Array.isArray(envelope.Results)) {
    envelope.Results = envelope.Results.map((item: Record<string, unknown>) => {
      const kept: Record<string, unknown> = {};
      for (const name of selected) if (Object.hasOwn(item, name)) kept[name] = item[name];
      return kept;
    });
  }
  return selected ?? columns;
}
