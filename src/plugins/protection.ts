import cors from '@fastify/cors';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../config.js';
import fp from 'fastify-plugin';
import { ApiError, clientGone } from '../contract/errors.js';
import type { RateLimit } from '../metrics/metrics.js';
import { connectRedis, sharedCounts } from './shared-counts.js';

/**
 * The client's address, which rate limits count by. A connection that is gone has none
 * (Node reads it off the socket): the client left, which ends the request as a refusal that
 * the error plugin logs at info, never as an error.
 */
export function clientAddress(request: FastifyRequest): string {
  const address = request.ip;
  if (address === undefined) throw clientGone();
  return address;
}

/**
 * The 429 of a rate limit, which says which limit refused it: the one place that counts
 * refusals (the executor, and the error plugin for what no operation ran) reads it.
 */
export const tooMany = (limit: RateLimit) => (_request: FastifyRequest, context: { after: string; ttl: number }) =>
  Object.assign(
    new ApiError(429, 'TooManyRequests', `Too many requests; retry in ${context.after}.`, [], {
      'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
    }),
    { rateLimit: limit },
  );

/** Which rate limit refused an error, if one did. */
export const refusingLimit = (error: unknown): RateLimit | undefined => (error as { rateLimit?: RateLimit } | null)?.rateLimit;

/**
 * Abuse limits and browser protections, each from configuration: a rate limit per
 * client address on every request (before anything else is done for it), and CORS for
 * the configured origins only (none by default). The security headers are set with the
 * request id (app.ts).
 */
export const protectionPlugin = fp(
  async (app: FastifyInstance) => {
    await registerProtection(app, app.config);
  },
  { name: 'protection', dependencies: ['store', 'route-hooks'] },
);

async function registerProtection(app: FastifyInstance, config: Config) {
  const origins = config.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean);
  await app.register(cors, {
    origin: origins.includes('*') ? true : origins.length > 0 ? origins : false,
    methods: ['GET', 'PUT', 'POST', 'DELETE'],
    // MCP clients in a browser send the protocol's headers and read its challenge (plugins/mcp.ts).
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name'],
    exposedHeaders: ['Content-Disposition', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  });
  const limited = config.RATE_LIMIT_MAX > 0 || config.REBATE_LOOKUP_RATE_LIMIT_MAX > 0;
  const redis = config.REDIS_URL && limited ? await connectRedis(config.REDIS_URL, app.log) : undefined;
  if (redis) app.addHook('onClose', async () => redis.client.disconnect());
  // Registered even when the global limit is off (0), for the strict routes' limits.
  await app.register(rateLimit, {
    global: config.RATE_LIMIT_MAX > 0,
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    hook: 'onRequest',
    // An assistant's calls count per OAuth grant: its vendor's addresses are shared by all its users.
    keyGenerator: (request: FastifyRequest) => (request.caller?.grantId ? `grant:${request.caller.grantId}` : normalizeIP(clientAddress(request))),
    errorResponseBuilder: tooMany('address'),
    ...(redis ? { store: sharedCounts(redis) } : {}),
    // A store error would be a 500 for the request (the default); sharedCounts never reports
    // one, it counts on this node instead, so only a fault of the code itself gets here.
    skipOnError: false,
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
