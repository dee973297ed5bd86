import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/db.js';
import { webhookQueueRepository, type ClaimedDelivery } from '../store/repositories/webhook-queue.js';
import { nextAttemptAt, retryAfterMs } from './schedule.js';
import { secretKey } from './secret.js';
import { send, type ResolveAll } from './send.js';
import { signatureHeaders } from './signing.js';

/** At most this many of this node's events are named in one claim; the rest wait for the next. */
const MAX_HANDED_OVER_PER_CLAIM = 256;

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
 * `webhook-id`: at least once. The lease outlasts an attempt (two time-outs and a second),
 * so a live node always records its attempt before another could take the delivery.
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
  let nudged: NodeJS.Immediate | undefined;
  /** this node's answered events, to be claimed at once rather than after the hand-off */
  const handedOver = new Set<string>();

  async function attempt({ delivery, endpoint }: ClaimedDelivery): Promise<void> {
    if (!endpoint || endpoint.disabled) return repository.fail(delivery, owner);
    const started = new Date();
    const key = secretKey(endpoint.secret);
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
    const next = succeeded || gone ? null : nextAttemptAt(options.schedule, delivery.attempts + 1, ended, retryAfterMs(result.retryAfter, ended));
    await repository.record(delivery, owner, {
      attemptedAt: started.toISOString(),
      url: endpoint.url,
      statusCode: status,
      durationMs: ended.getTime() - started.getTime(),
      succeeded,
      response: result.response,
      error: result.error,
      nextAttemptAt: next?.toISOString() ?? null,
      gone,
    });
    if (gone) options.log.warn({ endpoint: delivery.endpoint_id }, 'webhook endpoint answered 410 Gone and was disabled');
  }

  async function poll(): Promise<void> {
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      do {
        pollAgain = false;
        const room = options.concurrency - inFlight.size;
        if (closing) break;
        if (room <= 0) {
          backlog = true;
          break;
        }
        const now = new Date();
        const ids = [...handedOver].slice(0, MAX_HANDED_OVER_PER_CLAIM);
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
          const running = attempt(work)
            .catch((err: unknown) => options.log.error({ err, delivery: id }, 'webhook delivery attempt could not be recorded'))
            .finally(() => {
              inFlight.delete(id);
              if (backlog) void poll();
            });
          inFlight.set(id, running);
        }
        if (backlog) pollAgain = true;
      } while (pollAgain);
    } catch (err) {
      options.log.error({ err }, 'webhook deliveries could not be claimed');
    } finally {
      polling = false;
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
      // After the current turn of the event loop: the nudges of that turn make one claim.
      if (nudged) return;
      nudged = setImmediate(() => {
        nudged = undefined;
        void poll();
      });
    },
    async stop() {
      closing = true;
      clearInterval(timer);
      clearImmediate(nudged);
      const grace = new Promise((resolve) => setTimeout(resolve, options.stopGraceMs).unref());
      await Promise.race([Promise.all(inFlight.values()), grace]);
      stopping.abort();
      await Promise.all(inFlight.values());
      while (polling) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}
