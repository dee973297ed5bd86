import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseRetrySchedule } from '../webhooks/schedule.js';
import type { ResolveAll } from '../webhooks/send.js';
import { createDeliveryWorker, type DeliveryWorker } from '../webhooks/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** this node's webhook delivery worker; undefined where WEBHOOK_DELIVERY is off */
    webhooks?: DeliveryWorker;
  }
  interface FastifyRequest {
    /** the message id of the webhook event the request's write committed */
    recordedEvent: string | null;
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
    app.decorateRequest('recordedEvent', null);
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
    // A write's event is delivered after its answer is sent, never before: the answer does
    // not wait for the delivery, and a receiver never hears of a write its caller has not.
    // A callback hook: it runs for every answer, and an async one costs a promise each.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.recordedEvent) worker.nudge(request.recordedEvent);
      done();
    });
    app.addHook('preClose', async () => worker.stop());
  },
  { name: 'webhooks', dependencies: ['store'] },
);
