import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.js';
import fp from 'fastify-plugin';
import { ApiError } from '../http/errors.js';

const tooMany = (_request: FastifyRequest, context: { after: string; ttl: number }) =>
  new ApiError(429, 'TooManyRequests', `Too many requests; retry in ${context.after}.`, [], {
    'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

/**
 * Abuse limits and browser protections, each from configuration: a rate limit per
 * client address on every request (before anything else is done for it), security
 * headers, and CORS for the configured origins only (none by default).
 */
export const protectionPlugin = fp(
  async (app: FastifyInstance) => {
    await registerProtection(app, app.config);
  },
  { name: 'protection', dependencies: ['store', 'route-hooks'] },
);

async function registerProtection(app: FastifyInstance, config: Config) {
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

