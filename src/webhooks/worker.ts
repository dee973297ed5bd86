import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/db.js';
import { webhookQueueRepository, type ClaimedDelivery } from '../store/repositories/webhook-queue.js';
import { tracing } from '../tracing/tracing.js';
import { createAttemptRecorder, MAX_RECORDED_PER_BATCH } from './recorder.js';
import { nextAttemptAt, retryAfterMs } from '../domain/retry-schedule.js';
import { secretKey } from './secret.js';
import { send, type ResolveAll } from './send.js';
import { signatureHeaders } from './signing.js';

/**
 * A claim is a write (on SQLite a commit of its own): a busy node claims at most once in
 * CLAIM_WINDOW_MS, so that the events answered and the attempts ended meanwhile make one
 * claim, unless what waits already fills half the room or more.
 */
const CLAIM_WINDOW_MS = 10;
/** No more is claimed while this many ended attempts wait to be recorded (a slow database). */
const MAX_UNRECORDED = 4 * MAX_RECORDED_PER_BATCH;

export interface DeliveryWorkerOptions {
  /** delays before each retry, in milliseconds (schedule.ts) */
  schedule: readonly number[];
  timeoutMs: number;
  /** how often the queue is looked at when nothing nudges the worker */
  pollIntervalMs: number;
  /** attempts in flight at once on this node */
  concurrency: number;
  allowPrivateTargets: boolean;
  /** how long a stopping node lets attempts in flight finish before it gives them back */
  stopGraceMs: number;
  log: FastifyBaseLogger;
  resolve?: ResolveAll;
  /** told how each attempt ended and how long it took (the metrics) */
  onAttempt?(outcome: 'succeeded' | 'retry' | 'failed' | 'gone', durationMs: number): void;
}

export interface DeliveryWorker {
  start(): void;
  /** claim this node's event now: its write committed it and has answered */
  nudge(messageId: string): void;
  /** stop claiming; let attempts in flight finish within the grace, give back the rest */
  stop(): Promise<void>;
}

/**
 * Delivers the outbox (docs/decisions.md, "Events and deliveries"), on as many nodes as run it. A node claims due
 * deliveries under a lease (the repository's claim), attempts each once and records how it
 * went, which also schedules the next attempt. A node that dies holding a lease loses it
 * when it runs out, and the delivery is attempted again, by any node, with the same
 * `webhook-id`: at least once. The lease outlasts an attempt and its record (two time-outs
 * and a second), so a live node always records its attempt before another could take the
 * delivery. Attempts are recorded in batches (recorder.ts); a stopping node records every
 * attempt that ended before it lets the store close.
 */
export function createDeliveryWorker(store: Store, options: DeliveryWorkerOptions): DeliveryWorker {
  const repository = webhookQueueRepository(store);
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = 2 * options.timeoutMs + 1000;
  const inFlight = new Map<number, Promise<void>>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let closing = false;
  let polling = false;
  let pollAgain = false;
  /** more may be due than this node had room for: claim again as attempts end */
  let backlog = false;
  /** when the last claim was made (performance.now()), and the next one if it is set for later */
  let lastClaim = -Infinity;
  let claimNow: NodeJS.Immediate | undefined;
  let claimLater: NodeJS.Timeout | undefined;
  /** this node's answered events, to be claimed at once rather than after the hand-off */
  const handedOver = new Set<string>();
  /** endpoint secrets' key bytes, by secret: decoded once, not per attempt */
  const keys = new Map<string, Buffer | undefined>();
  const recorder = createAttemptRecorder((batch) => repository.recordAll(owner, batch), options.log, () => {
    if (backlog) claimSoon();
  });

  async function attempt({ delivery, endpoint }: ClaimedDelivery): Promise<void> {
    if (!endpoint || endpoint.disabled) return repository.fail(delivery, owner);
    const started = new Date();
    if (!keys.has(endpoint.secret)) {
      if (keys.size >= 1000) keys.clear();
      keys.set(endpoint.secret, secretKey(endpoint.secret));
    }
    const key = keys.get(endpoint.secret);
    const result = key
      ? await send(endpoint.url, signatureHeaders(delivery.message_id, started, delivery.payload, key), delivery.payload, {
          allowPrivateTargets: options.allowPrivateTargets,
          timeoutMs: options.timeoutMs,
          signal: stopping.signal,
          resolve: options.resolve,
        })
      : { statusCode: null, response: null, error: "the endpoint's secret is not a Standard Webhooks secret" };
    // Stopped mid-attempt: whether it arrived is unknown, so it is given back and sent again.
    if (stopping.signal.aborted && result.statusCode === null) return repository.release([delivery.id], owner);
    const ended = new Date();
    const status = result.statusCode;
    const succeeded = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    tracing?.attempted(status, succeeded);
    const next = succeeded || gone ? null : nextAttemptAt(options.schedule, delivery.attempts + 1, ended, retryAfterMs(result.retryAfter, ended));
    options.onAttempt?.(succeeded ? 'succeeded' : gone ? 'gone' : next ? 'retry' : 'failed', ended.getTime() - started.getTime());
    // requestId: the X-Request-Id of the write that recorded the event, to find one from the other.
    options.log.info(
      { requestId: delivery.request_id ?? undefined, messageId: delivery.message_id, endpoint: delivery.endpoint_id, statusCode: status, error: result.error ?? undefined },
      'webhook delivery attempted',
    );
    recorder.add({
      delivery,
      outcome: {
        attemptedAt: started.toISOString(),
        url: endpoint.url,
        statusCode: status,
        durationMs: ended.getTime() - started.getTime(),
        succeeded,
        response: result.response,
        error: result.error,
        nextAttemptAt: next?.toISOString() ?? null,
        gone,
      },
    });
  }

  /** Claims after the current turn of the event loop, or once the claim window has passed (CLAIM_WINDOW_MS). */
  function claimSoon(): void {
    if (closing || claimNow) return;
    const room = options.concurrency - inFlight.size;
    const wait = room >= options.concurrency / 2 && handedOver.size >= room ? 0 : lastClaim + CLAIM_WINDOW_MS - performance.now();
    if (wait > 0) {
      claimLater ??= setTimeout(claim, wait);
      return;
    }
    clearTimeout(claimLater);
    claimNow = setImmediate(claim);
  }
  const claim = () => {
    clearTimeout(claimLater);
    claimNow = claimLater = undefined;
    void poll();
  };

  async function poll(): Promise<void> {
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      const room = recorder.waiting() >= MAX_UNRECORDED ? 0 : options.concurrency - inFlight.size;
      if (closing) return;
      if (room <= 0) {
        backlog = true;
        return;
      }
      lastClaim = performance.now();
      const now = new Date();
      // No more of them than there is room for: the rest wait for the next claim.
      const ids: string[] = [];
      for (const id of handedOver) {
        if (ids.length >= room) break;
        ids.push(id);
      }
      for (const id of ids) handedOver.delete(id);
      const claimed = await repository.claim(owner, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), room, ids);
      backlog = claimed.length === room || handedOver.size > 0;
      // Out of room: what was not claimed is claimed as attempts end (or after the hand-off).
      if (claimed.length === room) {
        const taken = new Set(claimed.map((c) => c.delivery.message_id));
        for (const id of ids) if (!taken.has(id)) handedOver.add(id);
      }
      for (const work of claimed) {
        const id = work.delivery.id;
        // While tracing is on, each attempt is a span linked to the write's (docs/decisions.md, "Traces").
        const running = (tracing ? tracing.attempt(work.delivery, () => attempt(work)) : attempt(work))
          .catch((err: unknown) => options.log.error({ err, delivery: id, requestId: work.delivery.request_id ?? undefined }, 'webhook delivery attempt failed'))
          .finally(() => {
            inFlight.delete(id);
            if (backlog) claimSoon();
          });
        inFlight.set(id, running);
      }
      if (backlog) pollAgain = true;
    } catch (err) {
      options.log.error({ err }, 'webhook deliveries could not be claimed');
    } finally {
      polling = false;
      if (pollAgain) {
        pollAgain = false;
        claimSoon();
      }
    }
  }

  return {
    start() {
      if (timer || closing) return;
      timer = setInterval(() => void poll(), options.pollIntervalMs);
      timer.unref();
      void poll();
    },
    nudge(messageId) {
      if (!timer) return;
      handedOver.add(messageId);
      // Not before the current turn of the event loop ends: the nudges of that turn make one claim.
      claimSoon();
    },
    async stop() {
      closing = true;
      clearInterval(timer);
      clearImmediate(claimNow);
      clearTimeout(claimLater);
      const grace = new Promise((resolve) => setTimeout(resolve, options.stopGraceMs).unref());
      await Promise.race([Promise.all(inFlight.values()), grace]);
      stopping.abort();
      await Promise.all(inFlight.values());
      while (polling) await new Promise((resolve) => setTimeout(resolve, 5));
      // The attempts of a claim that was under way, then the record of every ended attempt.
      await Promise.all(inFlight.values());
      await recorder.flush();
    },
  };
}
