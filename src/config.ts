import envSchema from 'env-schema';
import ipaddr from 'ipaddr.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './domain/retry-schedule.js';

/**
 * The server's configuration: every environment variable is read and validated here,
 * and nowhere else. A bad value stops start-up with a message naming the variable.
 */
export interface Config {
  PORT: number;
  HOST: string;
  /** a second listener for /health and /ready only; unset, the probes share PORT */
  HEALTH_PORT?: number;
  SHUTDOWN_DELAY_MS: number;
  LISTEN_BACKLOG: number;
  MAX_CONNECTIONS: number;
  MAX_IN_FLIGHT: number;
  SHED_QUEUE_WAIT_MS: number;
  SHED_HEAP_USED_BYTES: number;
  DATABASE_URL: string;
  DATABASE_PREPARED_STATEMENTS: boolean;
  AUTH_JWT_SECRET?: string;
  AUTH_JWKS_URL?: string;
  AUTH_ISSUER?: string;
  AUTH_AUDIENCE?: string;
  AUTH_ROLES_CLAIM: string;
  AUTH_COMPANY_CLAIM: string;
  MCP_TOKEN_LIMIT: number;
  MCP_WINDOW_DAYS: number;
  /** the MCP server's authorization (docs/mcp.md, "Connecting an assistant"; docs/configuration.md says each) */
  MCP_AUTH: 'oauth' | 'bearer';
  PUBLIC_URL?: string;
  OAUTH_SECRET?: string;
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: number;
  OAUTH_KEY_ROTATION_DAYS: number;
  OAUTH_GRANT_MAX_DAYS: number;
  OAUTH_REGISTRATION_RATE_LIMIT_MAX: number;
  OAUTH_SIGN_IN_RATE_LIMIT_MAX: number;
  OAUTH_CIMD_ALLOW_LOOPBACK: boolean;
  OAUTH_UPSTREAM_ISSUER?: string;
  OAUTH_UPSTREAM_CLIENT_ID?: string;
  OAUTH_UPSTREAM_CLIENT_SECRET?: string;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  LOG_FORMAT: 'auto' | 'json' | 'pretty';
  DEMO_DATA: boolean;
  NODE_ENV: string;
  BODY_LIMIT: number;
  REQUEST_TIMEOUT_MS: number;
  RATE_LIMIT_MAX: number;
  RATE_LIMIT_WINDOW_MS: number;
  REBATE_LOOKUP_RATE_LIMIT_MAX: number;
  IDEMPOTENCY_KEY_TTL_SECONDS: number;
  IDEMPOTENCY_KEY_REQUIRED: boolean;
  CORS_ORIGINS: string;
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean;
  WEBHOOK_DELIVERY: boolean;
  WEBHOOK_RETRY_SCHEDULE: string;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_POLL_INTERVAL_MS: number;
  WEBHOOK_CONCURRENCY: number;
  REDIS_URL?: string;
  METRICS_TOKEN?: string;
  /** Fastify's trustProxy: every proxy, a hop count, or the proxies' addresses and CIDRs; false: none */
  TRUST_PROXY: boolean | number | string[];
}

const schema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    // Load, readiness and deploys (docs/operating.md): each limit off at 0.
    HEALTH_PORT: { type: 'integer', minimum: 1, maximum: 65535 },
    SHUTDOWN_DELAY_MS: { type: 'integer', minimum: 0, maximum: 600000, default: 0 },
    LISTEN_BACKLOG: { type: 'integer', minimum: 1, maximum: 65535, default: 4096 },
    MAX_CONNECTIONS: { type: 'integer', minimum: 0, default: 0 },
    MAX_IN_FLIGHT: { type: 'integer', minimum: 0, default: 0 },
    SHED_QUEUE_WAIT_MS: { type: 'integer', minimum: 0, default: 500 },
    SHED_HEAP_USED_BYTES: { type: 'integer', minimum: 0, default: 0 },
    DATABASE_URL: {
      type: 'string',
      pattern: '^(file:|postgres(ql)?://)',
      default: 'file:./data/booking.sqlite',
    },
    // PostgreSQL: named prepared statements; false behind a pooler that shares server
    // sessions between clients (PgBouncer in transaction mode), which cannot keep them.
    DATABASE_PREPARED_STATEMENTS: { type: 'boolean', default: true },
    AUTH_JWT_SECRET: { type: 'string', minLength: 16 },
    AUTH_JWKS_URL: { type: 'string', pattern: '^https?://[^\\s]+$' },
    AUTH_ISSUER: { type: 'string', minLength: 1 },
    AUTH_AUDIENCE: { type: 'string', minLength: 1 },
    AUTH_ROLES_CLAIM: { type: 'string', minLength: 1, default: 'roles' },
    AUTH_COMPANY_CLAIM: { type: 'string', minLength: 1, default: 'company_id' },
    MCP_TOKEN_LIMIT: { type: 'integer', minimum: 0, maximum: 2147483647, default: 1000000 },
    MCP_WINDOW_DAYS: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
    // The MCP server's authorization (docs/decisions.md, "Assistants sign in with OAuth").
    MCP_AUTH: { type: 'string', enum: ['oauth', 'bearer'], default: 'oauth' },
    PUBLIC_URL: { type: 'string', pattern: '^https?://[^/\\s?#]+$' },
    OAUTH_SECRET: { type: 'string', minLength: 16 },
    OAUTH_ACCESS_TOKEN_TTL_SECONDS: { type: 'integer', minimum: 60, maximum: 86400, default: 3600 },
    OAUTH_KEY_ROTATION_DAYS: { type: 'integer', minimum: 1, maximum: 3650, default: 90 },
    OAUTH_GRANT_MAX_DAYS: { type: 'integer', minimum: 1, maximum: 3650, default: 90 },
    OAUTH_REGISTRATION_RATE_LIMIT_MAX: { type: 'integer', minimum: 0, default: 30 },
    OAUTH_SIGN_IN_RATE_LIMIT_MAX: { type: 'integer', minimum: 0, default: 10 },
    OAUTH_CIMD_ALLOW_LOOPBACK: { type: 'boolean', default: false },
    OAUTH_UPSTREAM_ISSUER: { type: 'string', pattern: '^https?://[^\\s?#]+$' },
    OAUTH_UPSTREAM_CLIENT_ID: { type: 'string', minLength: 1 },
    OAUTH_UPSTREAM_CLIENT_SECRET: { type: 'string', minLength: 1 },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
    // auto: readable lines when stdout is a terminal, JSON lines otherwise (src/log-output.ts).
    LOG_FORMAT: { type: 'string', enum: ['auto', 'json', 'pretty'], default: 'auto' },
    DEMO_DATA: { type: 'boolean', default: true },
    NODE_ENV: { type: 'string', default: 'production' },
    BODY_LIMIT: { type: 'integer', minimum: 1024, default: 1048576 },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 30000 },
    RATE_LIMIT_MAX: { type: 'integer', minimum: 0, default: 600 },
    RATE_LIMIT_WINDOW_MS: { type: 'integer', minimum: 1000, default: 60000 },
    REBATE_LOOKUP_RATE_LIMIT_MAX: { type: 'integer', minimum: 0, default: 30 },
    // How long a write's Idempotency-Key and its stored answer are kept (docs/decisions.md, "Retried writes").
    IDEMPOTENCY_KEY_TTL_SECONDS: { type: 'integer', minimum: 1, maximum: 31536000, default: 86400 },
    // Whether a write without an Idempotency-Key is refused (400 IdempotencyKeyRequired).
    IDEMPOTENCY_KEY_REQUIRED: { type: 'boolean', default: false },
    CORS_ORIGINS: { type: 'string', default: '' },
    WEBHOOK_ALLOW_PRIVATE_TARGETS: { type: 'boolean', default: false },
    // Whether this node delivers webhooks; off for nodes that should only serve requests.
    WEBHOOK_DELIVERY: { type: 'boolean', default: true },
    WEBHOOK_RETRY_SCHEDULE: { type: 'string', default: DEFAULT_RETRY_SCHEDULE },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600000, default: 15000 },
    WEBHOOK_POLL_INTERVAL_MS: { type: 'integer', minimum: 10, maximum: 3600000, default: 1000 },
    WEBHOOK_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
    // Where the rate-limit counters are shared by every node; unset, each node counts alone.
    REDIS_URL: { type: 'string', pattern: '^rediss?://[^\\s]+$' },
    // The bearer token GET /metrics asks for; unset, there is no /metrics (404).
    METRICS_TOKEN: { type: 'string', pattern: '^[\\x21-\\x7e]+$' },
    // Which proxies' X-Forwarded-For gives the client's address (parseTrustProxy); unset, none.
    TRUST_PROXY: { type: 'string', default: 'false' },
  },
} as const;

/** Every variable the server reads, by name (docs/configuration.md has a row for each). */
export const CONFIG_KEYS = Object.keys(schema.properties) as Array<keyof Config>;

export class ConfigError extends Error {}

/** Variables the server no longer reads, each with what replaced it: start-up names any that is set. */
const RETIRED: Record<string, string> = {
  SHED_EVENT_LOOP_DELAY_MS:
    'SHED_EVENT_LOOP_DELAY_MS is no longer read: a node sheds on its own backlog, by MAX_IN_FLIGHT and SHED_QUEUE_WAIT_MS (docs/operating.md, "Overload")',
};

/** What start-up says of the retired variables set in `env`. */
export function retiredVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(RETIRED).filter((name) => env[name] !== undefined && env[name] !== '').map((name) => RETIRED[name]);
}

/** The smallest MAX_CONNECTIONS that is not 0 (docs/operating.md, "Overload"). */
export const MIN_CONNECTION_CAP = 1000;

/**
 * Reads the configuration from `env` (default: process.env) with `overrides` on top.
 * Throws ConfigError naming the first bad variable.
 */
export function loadConfig(
  overrides: Partial<Record<keyof Config, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const data: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') data[key] = value;
  }
  Object.assign(data, overrides);
  let config: Config;
  try {
    config = envSchema<Config>({ schema, data, env: false, dotenv: false });
  } catch (err) {
    const message = (err as Error).message.replace(/\/?env\//g, '').replace(/^\//, '');
    throw new ConfigError(`Invalid configuration: ${message}`);
  }
  // Fewer would refuse an ordinary pool of clients' keep-alive connections, not a storm.
  if (config.MAX_CONNECTIONS > 0 && config.MAX_CONNECTIONS < MIN_CONNECTION_CAP) {
    throw new ConfigError(`Invalid configuration: MAX_CONNECTIONS must be 0 (no cap) or at least ${MIN_CONNECTION_CAP}`);
  }
  checkOauth(config);
  const schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
  if (typeof schedule === 'string') throw new ConfigError(`Invalid configuration: WEBHOOK_RETRY_SCHEDULE: ${schedule}`);
  const trustProxy = parseTrustProxy(String(config.TRUST_PROXY));
  if (trustProxy instanceof Error) throw new ConfigError(`Invalid configuration: TRUST_PROXY: ${trustProxy.message}`);
  return { ...config, TRUST_PROXY: trustProxy };
}

/** With an identity provider, AUTH_AUDIENCE (else /mcp takes its tokens for any application); no test switch in production; OAUTH_UPSTREAM_* all or none. */
function checkOauth(config: Config): void {
  if (config.MCP_AUTH === 'oauth' && config.AUTH_JWKS_URL && !config.AUTH_AUDIENCE) {
    throw new ConfigError('Invalid configuration: AUTH_AUDIENCE is required with AUTH_JWKS_URL while MCP_AUTH is oauth (or set MCP_AUTH=bearer)');
  }
  if (config.OAUTH_CIMD_ALLOW_LOOPBACK && config.NODE_ENV === 'production') {
    throw new ConfigError('Invalid configuration: OAUTH_CIMD_ALLOW_LOOPBACK is for tests alone: production refuses it');
  }
  const keys = ['OAUTH_UPSTREAM_ISSUER', 'OAUTH_UPSTREAM_CLIENT_ID', 'OAUTH_UPSTREAM_CLIENT_SECRET'] as const;
  const missing = keys.filter((key) => !config[key]);
  if (missing.length > 0 && missing.length < keys.length) throw new ConfigError(`Invalid configuration: ${missing.join(' and ')} missing: ${keys.join(', ')} are set together or not at all`);
  const issuer = missing.length === 0 ? new URL(config.OAUTH_UPSTREAM_ISSUER!) : undefined;
  if (issuer && issuer.protocol !== 'https:' && !isLoopbackHost(issuer.hostname)) throw new ConfigError('Invalid configuration: OAUTH_UPSTREAM_ISSUER must be https (http on a loopback host alone)');
}

/** localhost, or a loopback address (127.0.0.0/8, [::1]). */
export function isLoopbackHost(hostname: string): boolean {
  const address = hostname.replace(/^\[|\]$/g, '');
  return hostname === 'localhost' || (ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback');
}

/** The names of address ranges Fastify's trustProxy (proxy-addr) accepts besides addresses. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: `true` (every proxy: the left-most
 * X-Forwarded-For address is the client), a hop count (the proxies in front of this node),
 * or comma-separated addresses and CIDRs of the proxies (and proxy-addr's `loopback`,
 * `linklocal`, `uniquelocal`). Checked here, so a typo stops start-up naming the variable
 * rather than failing the first request. docs/decisions.md, "Request ids and proxies".
 */
export function parseTrustProxy(value: string): boolean | number | string[] | Error {
  const text = value.trim();
  if (text === 'true') return true;
  if (text === 'false' || text === '') return false;
  if (/^\d+$/.test(text)) return Number(text) === 0 ? false : Number(text);
  const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    const valid = RANGE_NAMES.has(entry) || (entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry));
    if (!valid) return new Error(`"${entry}" is not an address, a CIDR or one of ${[...RANGE_NAMES].join(', ')} (or give true, or a hop count)`);
  }
  return entries;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}
