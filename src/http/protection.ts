import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
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
  await app.register(helmet, { global: true });
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
