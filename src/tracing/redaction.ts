import { operations } from '../contract/operations.js';

let declaredNames: Map<string, string> | undefined;

/**
 * The names of the request fields the contract declares, by lower-cased name: query and path
 * parameters and the top-level body fields, since ServiceStack's binding takes any of them
 * from the query string (http/servicestack-binding.ts).
 */
function declaredFields(): Map<string, string> {
  if (declaredNames) return declaredNames;
  const names = new Map<string, string>();
  for (const facts of operations().values()) {
    for (const schema of [facts.params, facts.query, facts.body]) {
      for (const name of Object.keys(schema?.properties ?? {})) names.set(name.toLowerCase(), name);
    }
  }
  declaredNames = names;
  return names;
}

/**
 * The URL as logs may hold it: the path, and the names of the request fields the contract
 * declares (matched in any case, as the binding matches them), never a value. Any value
 * can be a secret or personal data (a token pasted as `?jwt=`, a gift card's sign, a
 * customer's e-mail), and an undeclared name can be one too, so those are left out whole.
 */
export function maskUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const declared = declaredFields();
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
