import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseRetrySchedule } from '../domain/retry-schedule.js';
import type { ResolveAll } from '../webhooks/send.js';
import { createDeliveryWorker, type DeliveryWorker } from '../webhooks/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** this node's webhook delivery worker; undefined where WEBHOOK_DELIVERY is off */
    webhooks?: DeliveryWorker;
  }
}

export interface WebhooksPluginOptions {
  /** how host names are resolved for deliveries (tests point names at chosen addresses) */
  resolve?: ResolveAll;
}

/**
 * The webhook delivery worker of this node (docs/decisions.md, "Events and deliveries"): started once the app is
 * ready, stopped when it closes, before the store closes (attempts in flight finish or are
 * given back). With WEBHOOK_DELIVERY=false the node only serves; events are still recorded.
 */
export const webhooksPlugin = fp(
  async (app: FastifyInstance, { resolve }: WebhooksPluginOptions) => {
    const { config } = app;
    if (!config.WEBHOOK_DELIVERY) return;
    const schedule = parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
    if (typeof schedule === 'string') throw new Error(`WEBHOOK_RETRY_SCHEDULE: ${schedule}`);
    const worker = createDeliveryWorker(app.store, {
      schedule,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      // Within close-with-grace's 10 s, and shorter than an attempt's own time-out.
      stopGraceMs: Math.min(5000, config.WEBHOOK_TIMEOUT_MS / 2),
      log: app.log.child({ component: 'webhooks' }),
      resolve,
      onAttempt: app.metrics.webhookAttempt,
    });
    app.decorate('webhooks', worker);
    app.addHook('onReady', async () => worker.start());
    app.addHook('preClose', async () => worker.stop());
  },
  { name: 'webhooks', dependencies: ['store'] },
);
