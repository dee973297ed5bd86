import { propertiesOf, type JsonSchema } from '../contract/coercion.js';
import { parseJsv, toJsv, type JsvValue } from '../contract/jsv.js';
import { invalid, refused } from '../domain/refusals.js';

/** An operation's schemas of its request's parts, as the contract's facts hold them. */
interface RequestSchemas {
  query?: JsonSchema;
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
