import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import cors from '@fastify/cors';
import rateLimit, { normalizeIP, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import fp from 'fastify-plugin';
import { ApiError, clientGone } from '../http/errors.js';
import type { RateLimit } from '../metrics/metrics.js';

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

const tooMany = (limit: RateLimit) => (request: FastifyRequest, context: { after: string; ttl: number }) => {
  request.server.metrics.rateLimited(request.routeOptions.config.operationId, limit);
  return new ApiError(429, 'TooManyRequests', `Too many requests; retry in ${context.after}.`, [], {
    'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
};

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
    keyGenerator: (request: FastifyRequest) => normalizeIP(clientAddress(request)),
    errorResponseBuilder: tooMany('address'),
    ...(redis ? { store: sharedCounts(redis) } : {}),
    // A store error would be a 500 for the request (the default); sharedCounts never reports
    // one, it counts on this node instead, so only a fault of the code itself gets here.
    skipOnError: false,
  });
}

/** How long a request may wait for Redis, and a node starting for its first connection. */
const REDIS_TIMEOUT_MS = 1000;

interface SharedRedis {
  client: Redis;
  /** notes that Redis did not answer (logged once per outage) */
  failed(err: Error): void;
  /** notes that Redis answered (logged when it ends an outage) */
  answered(): void;
}

/**
 * The client of the Redis that holds every node's rate-limit counts. Commands fail at once
 * while it is away (no offline queue, no retries) and time out when it hangs: a request
 * never waits on Redis longer than REDIS_TIMEOUT_MS. Start-up waits as long for the first
 * connection, so that a node does not begin by counting alone while Redis is reachable.
 */
async function connectRedis(url: string, log: FastifyBaseLogger): Promise<SharedRedis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
  });
  let down = false;
  const failed = (err: Error) => {
    // ioredis reports every reconnection attempt; one warning per outage is enough.
    if (down) return;
    down = true;
    log.warn({ err }, 'Redis (REDIS_URL) does not answer: this node counts rate limits alone until it does');
  };
  // A timed-out command is an outage without a reconnection: an answer ends it too.
  const answered = () => {
    if (down) log.info('Redis (REDIS_URL) answers again: rate limits are counted by all nodes together');
    down = false;
  };
  client.on('error', failed);
  client.on('ready', answered);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, REDIS_TIMEOUT_MS);
    const settle = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', settle);
    client.once('error', settle);
  });
  return { client, failed, answered };
}

// @fastify/rate-limit's own stores, which it exposes only by file (its package has no
// exports map): the shared counts are kept exactly as the plugin keeps them in Redis, and the
// fallback exactly as a node without REDIS_URL counts.
const require = createRequire(import.meta.url);
const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, nameSpace: string) => FastifyRateLimitStore =
  require('@fastify/rate-limit/store/RedisStore.js');
const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean) => FastifyRateLimitStore =
  require('@fastify/rate-limit/store/LocalStore.js');

/**
 * Counts in Redis, so that N nodes allow a limit once rather than N times; while Redis does
 * not answer, counts on this node alone (as without REDIS_URL) rather than failing the
 * request or letting it through uncounted. The plugin makes a child per limited route.
 */
function sharedCounts({ client, failed, answered }: SharedRedis): FastifyRateLimitStoreCtor {
  class SharedCounts implements FastifyRateLimitStore {
    constructor(
      readonly shared: FastifyRateLimitStore,
      readonly local: FastifyRateLimitStore,
    ) {}

    incr(...[key, callback, timeWindow, max]: Parameters<FastifyRateLimitStore['incr']>): void {
      if (client.status !== 'ready') return this.local.incr(key, callback, timeWindow, max);
      this.shared.incr(key, (err, result) => {
        if (!err) {
          answered();
          return callback(null, result);
        }
        failed(err);
        this.local.incr(key, callback, timeWindow, max);
      }, timeWindow, max);
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      return new SharedCounts(this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return class extends SharedCounts {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const { continueExceeding = false, exponentialBackoff = false } = options;
      super(new RedisStore(continueExceeding, exponentialBackoff, client, 'booking-rate-limit:'), new LocalStore(continueExceeding, exponentialBackoff));
    }
  };
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
      const who = request.caller ? `${request.caller.companyId ?? ''}/${request.caller.sub ?? ''}` : clientAddress(request);
      return createHash('sha256').update(who).digest('base64url');
    },
    errorResponseBuilder: tooMany('caller'),
  };
}

