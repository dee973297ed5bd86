/**
 * Parses a query string the way the contract describes it: repeated keys become lists,
 * `Meta[key]=value` (OpenAPI deepObject style) becomes `{ Meta: { key: value } }`, and
 * blank values are dropped, since a blank parameter means "not given" (a blank
 * CompanyId uses the caller's company). Objects have no prototype, so no key can
 * reach Object.prototype.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  const result: Record<string, unknown> = Object.create(null);
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(text);
  } catch {
    return result;
  }
  let count = 0;
  for (const [key, value] of params) {
    if (++count > 200) break;
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
