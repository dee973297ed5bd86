import type { FastifyBaseLogger } from 'fastify';
import type { RecordedAttempt } from '../store/repositories/webhook-attempts.js';

/**
 * Ended attempts are recorded together (docs/decisions.md, "Events and deliveries"): those
 * that end within RECORD_WINDOW_MS of the first, and those that end while a batch is being
 * recorded, go in one batch, at most MAX_RECORDED_PER_BATCH in each. A batch is one
 * statement on PostgreSQL and one transaction on SQLite, whatever its length, rather than a
 * statement (on SQLite a transaction and its commit) per attempt.
 */
export const RECORD_WINDOW_MS = 20;
export const MAX_RECORDED_PER_BATCH = 128;

export interface AttemptRecorder {
  /** an ended attempt, whose delivery this node still holds, to be recorded soon */
  add(attempt: RecordedAttempt): void;
  /** how many ended attempts wait to be recorded */
  waiting(): number;
  /** records every attempt that waits; resolves once none does (a stopping node) */
  flush(): Promise<void>;
}

/**
 * Records ended attempts a batch at a time, one batch at a time, with `record` (the queue's
 * recordAll for this node); `recorded` is called after each batch. A batch that cannot be
 * recorded is logged and left under its leases: its deliveries are sent again once those run
 * out, as after a crash (at least once).
 */
export function createAttemptRecorder(
  record: (batch: readonly RecordedAttempt[]) => Promise<void>,
  log: FastifyBaseLogger,
  recorded: () => void,
): AttemptRecorder {
  let waiting: RecordedAttempt[] = [];
  let timer: NodeJS.Timeout | undefined;
  let recording: Promise<void> | undefined;

  async function recordWaiting(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_RECORDED_PER_BATCH);
      waiting = waiting.slice(batch.length);
      try {
        await record(batch);
        for (const { delivery, outcome } of batch) {
          if (outcome.gone) log.warn({ endpoint: delivery.endpoint_id, requestId: delivery.request_id ?? undefined }, 'webhook endpoint answered 410 Gone and was disabled');
        }
      } catch (err) {
        log.error({ err, deliveries: batch.map((a) => a.delivery.id) }, 'webhook delivery attempts could not be recorded');
      }
      recorded();
    }
  }

  function start(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    recording ??= recordWaiting().finally(() => {
      recording = undefined;
      // Ended between the last batch and now: a batch of their own.
      if (waiting.length > 0) void start();
    });
    return recording;
  }

  return {
    add(attempt) {
      waiting.push(attempt);
      if (waiting.length >= MAX_RECORDED_PER_BATCH) void start();
      else timer ??= setTimeout(() => void start(), RECORD_WINDOW_MS);
    },
    waiting: () => waiting.length,
    async flush() {
      while (waiting.length > 0 || recording) await start();
    },
  };
}
