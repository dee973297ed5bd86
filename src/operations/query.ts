import { invalid, refused } from '../domain/refusals.js';
import { parseJsv, toJsv, type JsvValue } from '../http/jsv.js';
import type { Page } from '../store/paging.js';

/** Query parameters every query operation shares beyond paging. */
export interface EnvelopeRequest {
  Fields?: string;
  /** Accepted for compatibility (`Total`): Total is always reported, so it changes nothing. */
  Include?: string;
  /** `Meta[key]=value` pairs arrive as a map; the contract also takes the map as one JSV or JSON text. */
  Meta?: Record<string, string> | string;
}

const isMap = (value: JsvValue): value is { [key: string]: JsvValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request's Meta as a map. Clients that send no deepObject maps (and ServiceStack's
 * own) write it as one text, `{key:value}` in JSV or JSON; a value nested in that text
 * keeps its JSV text, as a string map holds it, and an empty one is left out.
 */
export function requestMeta(meta: EnvelopeRequest['Meta']): Record<string, string> | undefined {
  if (meta === undefined || typeof meta === 'object') return meta;
  let value: JsvValue;
  try {
    value = parseJsv(meta);
  } catch {
    value = null;
  }
  if (!isMap(value)) throw refused(invalid('InvalidType', 'Meta', (name) => `${name} must be a map of strings: {key:value}.`));
  const entries = Object.entries(value).flatMap(([key, item]): [string, string][] =>
    item === null ? [] : [[key, typeof item === 'string' ? item : toJsv(item)]],
  );
  return Object.fromEntries(entries);
}

/**
 * Every field name of an item type, as a list. The argument is an object with one `true`
 * per field, so the compiler refuses a list that misses or invents a field.
 */
export const itemFields = <Item extends object>(shape: { [K in keyof Required<Item>]: true }): string[] =>
  Object.keys(shape);

/**
 * The item fields that `Fields` names (matched case-insensitively against `known`, the
 * item's field names); undefined — fill every field — when Fields is absent or names
 * no known field, as ServiceStack ignores unknown names.
 */
export function selectedFields(fields: string | undefined, known: readonly string[]): Set<string> | undefined {
  if (!fields) return undefined;
  const wanted = new Set(fields.split(',').map((f) => f.trim().toLowerCase()).filter(Boolean));
  const selected = new Set(known.filter((name) => wanted.has(name.toLowerCase())));
  return selected.size > 0 ? selected : undefined;
}

/** Keeps only the fields of `item` that `Fields` selects (see selectedFields). */
export function pickFields<T extends object>(item: T, fields: string | undefined, known: readonly string[]): T {
  const selected = selectedFields(fields, known);
  if (!selected) return item;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) if (selected.has(key)) out[key] = value;
  return out as T;
}

/**
 * The QueryResponse envelope: Offset (= Skip), Total (of the filter, not the page), the
 * page's Results narrowed by Fields, and the request's Meta echoed. `fields` lists the
 * item's field names; when a handler gives none, the page's sortable fields stand in
 * (right when every item field is a column, as for categories).
 */
export function envelope<Row, Item extends object>(
  page: Page<Row>,
  toItem: (row: Row) => Item,
  request: EnvelopeRequest,
  fields: readonly string[] = page.fields,
): { Offset: number; Total: number; Results: Item[]; Meta?: Record<string, string> } {
  const meta = Object.entries(requestMeta(request.Meta) ?? {});
  return {
    Offset: page.offset,
    Total: page.total,
    Results: page.rows.map((row) => pickFields(toItem(row), request.Fields, fields)),
    ...(meta.length > 0 ? { Meta: Object.fromEntries(meta) } : {}),
  };
}
