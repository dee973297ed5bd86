import { contract } from './contract.js';

let declaredQueryNames: Map<string, string> | undefined;

/** The query parameters the contract declares, by lower-cased name (a parameter may be a `$ref`). */
function declaredQuery(): Map<string, string> {
  if (declaredQueryNames) return declaredQueryNames;
  const { document } = contract();
  const names = new Map<string, string>();
  const shared = (document.components?.parameters ?? {}) as Record<string, { name: string; in: string }>;
  for (const item of Object.values<Record<string, { parameters?: unknown[] }>>(document.paths)) {
    for (const op of Object.values(item)) {
      for (const parameter of op?.parameters ?? []) {
        const ref = (parameter as { $ref?: string }).$ref;
        const p = ref ? shared[ref.split('/').pop()!] : (parameter as { name: string; in: string });
        if (p?.in === 'query') names.set(p.name.toLowerCase(), p.name);
      }
    }
  }
  declaredQueryNames = names;
  return names;
}

/**
 * The URL as logs may hold it: the path, and the names of the query parameters the
 * contract declares, never a value. Any value can be a secret or personal data (a token
 * pasted as `?jwt=`, a gift card's sign, a customer's e-mail), and an undeclared name can
 * be one too, so those are left out whole.
 */
export function maskUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const declared = declaredQuery();
  const kept: string[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    const eq = pair.indexOf('=');
    let name = eq < 0 ? pair : pair.slice(0, eq);
    try {
      name = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      continue;
    }
    const known = declared.get(name.toLowerCase()) ?? declared.get(name.replace(/\[.*$/, '').toLowerCase());
    if (known) kept.push(`${known}=[redacted]`);
  }
  const path = url.slice(0, start);
  return kept.length > 0 ? `${path}?${kept.join('&')}` : path;
}

/**
 * pino's redaction for the server's logs: credentials in headers; every query value in
 * logged URLs (the request's, and the one the error handler logs); and the raw bytes
 * (headers with the bearer token, body with e-mail addresses) that Node attaches as
 * `rawPacket` to a malformed request's error. test/robustness/logs.test.ts proves it.
 */
export const logRedaction = {
  // `url` alone: the error handler logs the URL of a request that failed unexpectedly.
  paths: ['req.headers.authorization', 'req.headers.cookie', 'req.url', 'url', 'err.rawPacket'],
  censor: (value: unknown, path: string[]) =>
    path[path.length - 1] === 'url' && typeof value === 'string' ? maskUrl(value) : '[redacted]',
};
