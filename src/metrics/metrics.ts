import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * What a node tells Prometheus (docs/decisions.md, "Metrics"), kept with prom-client. Each app
 * has a registry of its own (tests build many apps in one process); the process and Node.js
 * figures belong to the process, so one registry of them is shared by every app in it. No
 * metric carries a label naming the node: Prometheus adds `instance` to every series it
 * scrapes, so the nodes' series stay apart and sum() across them adds up.
 */

/** How a webhook delivery attempt ended: delivered, to be tried again, out of retries, or 410 (the endpoint is disabled). */
export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'gone';
/** How a tool call ended: answered, refused by its operation, refused for the company's budget, or a fault of the server. */
export type ToolOutcome = 'ok' | 'refused' | 'over_budget' | 'error';
/** Which limit refused: the per-address one, or the per-caller one of the strict lookups. */
export type RateLimit = 'address' | 'caller';
/** Why a request was shed: it waited SHED_QUEUE_WAIT_MS in the node, or the heap is over its limit. */
export type ShedReason = 'queue_wait' | 'heap';
/** What an Idempotency-Key made of a write other than running it: a replay, or a refusal of each kind. */
export type KeyOutcome = 'replayed' | 'reused' | 'in_use' | 'invalid' | 'required';

/** What the rest of the server reports; every method does nothing on a node without metrics. */
export interface MetricsRecorder {
  /** one answered request, an MCP tool call's included; `operation` is its operationId, if it has one */
  request(operation: string | undefined, status: number, seconds: number): void;
  rateLimited(operation: string | undefined, limit: RateLimit): void;
  idempotency(operation: string, outcome: KeyOutcome): void;
  /** a request answered 503 by load shedding, before any of its work */
  shed(operation: string | undefined, reason: ShedReason): void;
  /** a connection closed as it arrived, beyond MAX_CONNECTIONS */
  connectionDropped(): void;
  webhookAttempt(outcome: AttemptOutcome, durationMs: number): void;
  mcpToolCall(tool: string, outcome: ToolOutcome, tokens: number): void;
}

export const noMetrics: MetricsRecorder = {
  request() {},
  rateLimited() {},
  idempotency() {},
  shed() {},
  connectionDropped() {},
  webhookAttempt() {},
  mcpToolCall() {},
};

/** The figures read from the database and the pool when Prometheus scrapes (database.ts). */
export interface ScrapedFigures {
  outbox?: { pending: number; oldestAgeSeconds: number; failingEndpoints: number };
  pool?: { max: number; inUse: number; idle: number; waiting: number };
  /** this node's own backlog (plugins/load.ts) */
  backlog?: { running: number; waiting: number };
}

let processRegistry: Registry | undefined;

/** The process and Node.js figures (CPU, memory, event loop, GC), collected once per process. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

// A request of this API takes from a fraction of a millisecond to a few; prom-client's
// default buckets start at 5 ms, which would put nearly every request in the first one.
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// An attempt ends within WEBHOOK_TIMEOUT_MS (15 s by default, at most 10 min).
const ATTEMPT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['succeeded', 'retry', 'failed', 'gone'];

export interface AppMetrics extends MetricsRecorder {
  /** the exposition of every metric, with the scraped figures set first */
  exposition(figures: ScrapedFigures): Promise<{ contentType: string; text: string }>;
}

/** `pool`: the store is PostgreSQL's, whose pool of connections is reported. */
export function createMetrics(options: { pool: boolean }): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, buckets, labelNames, registers });
  const requests = histogram(
    'http_request_duration_seconds',
    'Time from routing a request to its answer being sent, by operationId (other: no operation) and status code.',
    REQUEST_BUCKETS,
    ['operation', 'status_code'] as const,
  );
  const rateLimited = counter(
    'http_rate_limited_total',
    'Requests refused with 429 by a rate limit: per client address, or per caller (the strict lookups).',
    ['operation', 'limit'] as const,
  );
  const keyed = counter(
    'idempotency_requests_total',
    'Keyed writes that did not run by what their Idempotency-Key made of them: replayed (the stored answer), reused (422), in_use (409), invalid or required (400).',
    ['operation', 'outcome'] as const,
  );
  const shed = counter(
    'http_requests_shed_total',
    'Requests answered 503 by load shedding before any of their work, by operation and reason: queue_wait (it waited SHED_QUEUE_WAIT_MS in the node) or heap (over its limit).',
    ['operation', 'reason'] as const,
  );
  const dropped = counter('http_connections_dropped_total', 'Connections closed as they arrived, beyond MAX_CONNECTIONS.');
  const attempts = counter(
    'webhook_delivery_attempts_total',
    'Webhook delivery attempts this node made, by outcome: succeeded, retry (failed, tried again later), failed (no retry left), gone (410, endpoint disabled).',
    ['outcome'] as const,
  );
  // Every outcome from the start, so that rate() sees the first attempt of each.
  for (const outcome of ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  const attemptSeconds = histogram(
    'webhook_delivery_attempt_duration_seconds',
    'How long each webhook delivery attempt took, name resolution included.',
    ATTEMPT_BUCKETS,
  );
  const toolCalls = counter('mcp_tool_calls_total', 'MCP tool calls by tool and outcome: ok, refused (by the operation), over_budget, error.', [
    'tool',
    'outcome',
  ] as const);
  const tokens = counter('mcp_tokens_total', 'o200k_base tokens metered to companies for MCP tool results.');
  const scraped = scrapedGauges(registry, options.pool);
  const exposed = Registry.merge([processMetrics(), registry]);

  return {
    request(operation, statusCode, seconds) {
      requests.observe({ operation: operation ?? 'other', status_code: statusCode }, seconds);
    },
    rateLimited(operation, limit) {
      rateLimited.inc({ operation: operation ?? 'other', limit });
    },
    idempotency(operation, outcome) {
      keyed.inc({ operation, outcome });
    },
    shed(operation, reason) {
      shed.inc({ operation: operation ?? 'other', reason });
    },
    connectionDropped() {
      dropped.inc();
    },
    webhookAttempt(outcome, durationMs) {
      attempts.inc({ outcome });
      attemptSeconds.observe(durationMs / 1000);
    },
    mcpToolCall(tool, outcome, metered) {
      toolCalls.inc({ tool, outcome });
      if (metered > 0) tokens.inc(metered);
    },
    async exposition(figures) {
      scraped.set(figures);
      return { contentType: exposed.contentType, text: await exposed.metrics() };
    },
  };
}

/**
 * The gauges read when Prometheus scrapes. The outbox's are database-wide: every node answers
 * the same figures (docs/operating.md: query them with max()). The pool's exist on PostgreSQL alone.
 */
function scrapedGauges(registry: Registry, pooled: boolean) {
  const registers = [registry];
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
  const pending = gauge('webhook_outbox_pending', 'Webhook deliveries waiting to be delivered (one per event and endpoint), in the whole database.');
  const oldest = gauge('webhook_outbox_oldest_pending_age_seconds', 'Age of the oldest pending webhook delivery (0 when none is pending), in the whole database.');
  const failing = gauge('webhook_endpoints_failing', 'Endpoints with a pending delivery whose attempts have all failed so far, in the whole database.');
  const pool = pooled
    ? {
        max: gauge('db_pool_connections_max', 'Connections this node may open to PostgreSQL.'),
        inUse: gauge('db_pool_connections_in_use', 'Connections of this node running a query or a transaction.'),
        idle: gauge('db_pool_connections_idle', 'Open connections of this node waiting for work.'),
        waiting: gauge('db_pool_requests_waiting', 'Queries of this node waiting for a free connection.'),
      }
    : undefined;
  const running = gauge('http_requests_running', 'Requests this node runs now (at most MAX_IN_FLIGHT).');
  const waiting = gauge('http_requests_waiting', 'Requests this node has read that wait to run, beyond MAX_IN_FLIGHT.');
  return {
    set({ outbox, pool: connections, backlog }: ScrapedFigures) {
      running.set(backlog?.running ?? Number.NaN);
      waiting.set(backlog?.waiting ?? Number.NaN);
      // The database did not answer: no figure rather than a stale one.
      pending.set(outbox?.pending ?? Number.NaN);
      oldest.set(outbox?.oldestAgeSeconds ?? Number.NaN);
      failing.set(outbox?.failingEndpoints ?? Number.NaN);
      if (!pool || !connections) return;
      for (const key of ['max', 'inUse', 'idle', 'waiting'] as const) pool[key].set(connections[key]);
    },
  };
}
