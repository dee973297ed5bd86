import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import rateLimit, { normalizeIP, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
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

/**
 * The 429 of a rate limit, which says which limit refused it: the one place that counts
 * refusals (the error plugin for HTTP, the MCP tool call) reads it with the operation.
 */
const tooMany = (limit: RateLimit) => (_request: FastifyRequest, context: { after: string; ttl: number }) =>
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

// Our own store, through @fastify/rate-limit's public `store` option (its README, "Custom
// store"). Its `redis` option would count in Redis too, but only with `skipOnError`'s choice
// while Redis is away: a 500 for every request, or none counted; and its own stores are
// exported only as files (no exports map) that any upgrade may move. So the store is ours,
// counting as the plugin's Redis store does (same script and keys, so that nodes of an older
// release count together with these during a rolling upgrade).

/**
 * One count: a fixed window from a key's first request, restarted by every request over the
 * limit with continueExceeding, or lengthened exponentially with exponentialBackoff (neither
 * is set here; the plugin passes them). Returns [count, ms left in the window].
 */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
if current == 1 or (ARGV[3] == 'true' and current > max) then
  redis.call('PEXPIRE', KEYS[1], window)
elseif ARGV[4] == 'true' and current > max then
  window = math.min(window * 2 ^ (current - max - 1), 2 ^ 53 - 1)
  redis.call('PEXPIRE', KEYS[1], window)
else
  window = redis.call('PTTL', KEYS[1])
end
return {current, window}
`;

/** The limits the plugin passes to a store: its options, merged with a route's for child(). */
interface Limits {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  /** how many keys a node keeps when it counts alone (the plugin's `cache`, 5000 by default) */
  cache?: number;
  /** the route of a child (its README, "Custom store"); its typings omit it */
  routeInfo?: { method?: string; url?: string };
  groupId?: string;
}

/** One key's window on this node: its count, and when it ends (ms since the epoch). */
interface Window {
  count: number;
  ends: number;
}

/** COUNT_SCRIPT, on this node's own counts. */
function countAlone(windows: LRUCache<string, Window>, key: string, timeWindow: number, max: number, limits: Limits) {
  const now = Date.now();
  const window = windows.get(key);
  const current = window && window.ends > now ? window.count + 1 : 1;
  let ttl = window && current > 1 ? window.ends - now : timeWindow;
  if (limits.continueExceeding && current > max) ttl = timeWindow;
  else if (limits.exponentialBackoff && current > max) ttl = Math.min(timeWindow * 2 ** (current - max - 1), Number.MAX_SAFE_INTEGER);
  windows.set(key, { count: current, ends: now + ttl });
  return { current, ttl };
}

type CountingRedis = Redis & {
  countRateLimit(key: string, timeWindow: number, max: number, continueExceeding: string, exponentialBackoff: string): Promise<[number, number]>;
};

/**
 * Counts in Redis, so that N nodes allow a limit once rather than N times; while Redis does
 * not answer, counts on this node alone (as without REDIS_URL) rather than failing the
 * request or letting it through uncounted. The plugin makes a child per limited route.
 */
function sharedCounts({ client, failed, answered }: SharedRedis): FastifyRateLimitStoreCtor {
  const redis = client as CountingRedis;
  redis.defineCommand('countRateLimit', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  return class SharedCounts implements FastifyRateLimitStore {
    readonly alone: LRUCache<string, Window>;

    constructor(
      readonly limits: Limits,
      readonly prefix = 'booking-rate-limit:',
    ) {
      this.alone = new LRUCache({ max: limits.cache ?? 5000 });
    }

    incr(...[key, callback, timeWindow, max]: Parameters<FastifyRateLimitStore['incr']>): void {
      const alone = () => callback(null, countAlone(this.alone, key, timeWindow, max, this.limits));
      if (client.status !== 'ready') return alone();
      const { continueExceeding = false, exponentialBackoff = false } = this.limits;
      redis.countRateLimit(this.prefix + key, timeWindow, max, String(continueExceeding), String(exponentialBackoff)).then(
        ([current, ttl]) => {
          answered();
          callback(null, { current, ttl });
        },
        (err: Error) => {
          failed(err);
          alone();
        },
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      const limits = routeOptions as Limits;
      // The plugin's Redis store's key for a route; a limit made with app.rateLimit() has none, and its groupId names it.
      const scope = limits.routeInfo?.url ? `${limits.routeInfo.method}${limits.routeInfo.url}` : (limits.groupId ?? 'limit');
      return new SharedCounts(limits, `${this.prefix}${scope}-`);
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
 * The tighter limit of an `x-rate-limit: strict` operation, counted per verified caller
 * (after authentication) so that one caller cannot enumerate rebate codes; the executor
 * counts a call against it (executor/run.ts).
 */
export function strictRateLimit(config: Config) {
  return {
    max: config.REBATE_LOOKUP_RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    groupId: 'lookups',
    keyGenerator: (request: FastifyRequest) => {
      const who = request.caller ? `${request.caller.companyId ?? ''}/${request.caller.sub ?? ''}` : clientAddress(request);
      return createHash('sha256').update(who).digest('base64url');
    },
    errorResponseBuilder: tooMany('caller'),
  };
}
