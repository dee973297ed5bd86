import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.js';
import { contract, deref } from './contract.js';
import { ApiError } from './errors.js';

const tooMany = (_request: FastifyRequest, context: { after: string; ttl: number }) =>
  new ApiError(429, 'TooManyRequests', `Too many requests; retry in ${context.after}.`, [], {
    'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

/**
 * Abuse limits and browser protections, each from configuration: a rate limit per
 * client address on every request (before anything else is done for it), security
 * headers, and CORS for the configured origins only (none by default).
 */
export async function registerProtection(app: FastifyInstance, config: Config) {
  const headers = securityHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  const origins = config.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean);
  await app.register(cors, {
    origin: origins.includes('*') ? true : origins.length > 0 ? origins : false,
    methods: ['GET', 'PUT', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
    exposedHeaders: ['Content-Disposition', 'Retry-After'],
    maxAge: 600,
  });
  // Registered even when the global limit is off (0), for the strict routes' limits.
  await app.register(rateLimit, {
    global: config.RATE_LIMIT_MAX > 0,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    hook: 'onRequest',
    errorResponseBuilder: tooMany,
  });
}

/**
 * helmet's security headers with its defaults, worked out once. They are the same for
 * every answer here (no per-request CSP nonces), while @fastify/helmet rebuilds helmet's
 * middleware, parsing the CSP directives again, on every request (seen in the profiles
 * of bench/results.md). helmet's own middleware writes them into a recording response.
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet()({} as never, recorder as never, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  // helmet's middleware is synchronous; if it ever is not, start-up must not go on without headers.
  if (!finished) throw new Error('helmet did not finish synchronously');
  return headers;
}

/**
 * The tighter limit of an `x-rate-limit: strict` operation, counted per verified
 * caller (after authentication) so that one caller cannot enumerate rebate codes.
 */
export function strictRateLimit(config: Config) {
  if (config.REBATE_LOOKUP_RATE_LIMIT_MAX === 0) return undefined;
  return {
    max: config.REBATE_LOOKUP_RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    hook: 'preValidation' as const,
    groupId: 'strict',
    keyGenerator: (request: FastifyRequest) => {
      const who = request.caller ? `${request.caller.companyId ?? ''}/${request.caller.sub ?? ''}` : request.ip;
      return createHash('sha256').update(who).digest('base64url');
    },
    errorResponseBuilder: tooMany,
  };
}

let declaredQueryNames: Map<string, string> | undefined;

/** The query parameters the contract declares, by lower-cased name (a parameter may be a $ref). */
function declaredQuery(): Map<string, string> {
  if (declaredQueryNames) return declaredQueryNames;
  const { document } = contract();
  const names = new Map<string, string>();
  for (const item of Object.values<Record<string, any>>(document.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const parameter of op?.parameters ?? []) {
        const p = deref(document, parameter) as { name: string; in: string };
        if (p.in === 'query') names.set(p.name.toLowerCase(), p.name);
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
