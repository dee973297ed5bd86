import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

// The rate limits' counts shared by every node through Redis (REDIS_URL), or this node's
// own while Redis is away (plugins/protection.ts registers the limits).

/** How long a request may wait for Redis, and a node starting for its first connection. */
const REDIS_TIMEOUT_MS = 1000;

export interface SharedRedis {
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
export async function connectRedis(url: string, log: FastifyBaseLogger): Promise<SharedRedis> {
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
export function sharedCounts({ client, failed, answered }: SharedRedis): FastifyRateLimitStoreCtor {
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

