import type { IncomingMessage } from 'node:http';
import { contract } from './contract.js';
import { takeFormatSuffix } from './negotiation.js';

/**
 * ServiceStack's predefined routes (docs/decisions.md, "Wire format"): every operation is also served at
 * `/api/{OperationId}` and `/json/reply/{OperationId}`, the routes ServiceStack's clients
 * (JsonServiceClient) call by default. Such a request is routed as a request to the
 * operation's own route, so that authentication, roles, company rules, validation, rate
 * limits and errors are exactly that route's. Only the operation's own method is served
 * there (HEAD too for a GET): ServiceStack would take any method, but its clients call an
 * operation with the method of its route, and a GET that deletes would be unsafe (links,
 * prefetching, caches). Any other method answers 405 with `Allow`, as on the own path.
 */

interface Operation {
  /** the operation's own path, with PATH_VALUE in place of each path parameter */
  path: string;
  /** the operation's path template as a pattern (`/tags/{Id}` → /tags/<segment>) */
  pattern: RegExp;
}

/**
 * The segment a predefined route puts in place of a path parameter: there, the parameter
 * comes from the query string or the body, and the route hooks bind it (servicestack-binding.ts).
 */
const PATH_VALUE = '_';

const PREDEFINED = /^\/(?:api|json\/reply)\/([^/]+)\/?$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let byName: Map<string, Operation> | undefined;

/** The contract's operations by lower-cased OperationId (ServiceStack matches names in any case). */
function operations(): Map<string, Operation> {
  if (byName) return byName;
  byName = new Map();
  for (const [template, item] of Object.entries<Record<string, { operationId?: string }>>(contract().document.paths)) {
    for (const method of METHODS) {
      const operationId = item[method]?.operationId;
      if (!operationId) continue;
      const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      byName.set(operationId.toLowerCase(), {
        path: template.replace(/\{[^}]+\}/g, PATH_VALUE),
        pattern: new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
      });
    }
  }
  return byName;
}

const predefined = Symbol('predefined route');
type RawRequest = IncomingMessage & { [predefined]?: true };

/** The operation a predefined route's path names, if any. */
function predefinedOperation(path: string): Operation | undefined {
  const name = PREDEFINED.exec(path)?.[1];
  return name === undefined ? undefined : operations().get(name.toLowerCase());
}

function isOperationPath(path: string): boolean {
  if (predefinedOperation(path)) return true;
  for (const operation of operations().values()) if (operation.pattern.test(path)) return true;
  return false;
}

/** True when the request came by a predefined route: its path parameters are not in its path. */
export function isPredefinedRoute(raw: IncomingMessage): boolean {
  return (raw as RawRequest)[predefined] === true;
}

/**
 * Fastify's `rewriteUrl`: takes a `.csv` or `.json` suffix off the path (negotiation.ts), then
 * routes a predefined route as its operation's own path. The query string is kept as sent.
 */
export function rewriteUrl(raw: IncomingMessage): string {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  let path = takeFormatSuffix(raw, q === -1 ? url : url.slice(0, q), isOperationPath);
  const operation = predefinedOperation(path);
  if (operation) {
    (raw as RawRequest)[predefined] = true;
    path = operation.path;
  }
  return path + (q === -1 ? '' : url.slice(q));
}
