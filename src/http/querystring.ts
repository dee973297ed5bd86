import { decodeQueryComponent } from './utf8.js';

/** The names of the query parameters whose bytes were not UTF-8, on the parsed query. */
const NOT_UTF8 = Symbol('query parameters that are not UTF-8');

type ParsedQuery = Record<string, unknown> & { [NOT_UTF8]?: string[] };

/** The query parameters of a parsed query string whose bytes were not UTF-8 (usually none). */
export function queryNotUtf8(query: unknown): readonly string[] {
  return (query as ParsedQuery | undefined)?.[NOT_UTF8] ?? [];
}

/**
 * Parses a query string the way the contract describes it: repeated keys become lists,
 * `Meta[key]=value` (OpenAPI deepObject style) becomes `{ Meta: { key: value } }`, and
 * blank values are dropped, since a blank parameter means "not given" (a blank
 * CompanyId uses the caller's company). Objects have no prototype, so no key can
 * reach Object.prototype. A key or value whose bytes are not UTF-8 is left out and named
 * (queryNotUtf8), for the route to refuse: the router calls this, where nothing can be
 * answered yet.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  const result: ParsedQuery = Object.create(null);
  let count = 0;
  for (const pair of text.split('&', 201)) {
    if (pair === '' || ++count > 200) continue;
    const eq = pair.indexOf('=');
    const key = decodeQueryComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeQueryComponent(pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      const name = key ?? new URLSearchParams(`${pair.slice(0, eq === -1 ? undefined : eq)}`).keys().next().value ?? '';
      (result[NOT_UTF8] ??= []).push(name);
      continue;
    }
    if (value === '') continue;
    const deep = /^([^[\]]+)\[([^[\]]*)\]$/.exec(key);
    if (deep) {
      const [, name, member] = deep;
      let map = result[name];
      if (map === undefined || typeof map !== 'object' || Array.isArray(map)) {
        map = Object.create(null);
        result[name] = map;
      }
      (map as Record<string, string>)[member] = value;
      continue;
    }
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  return result;
}
