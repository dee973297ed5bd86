import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createExecutor, type Execute } from '../executor/execute.js';
import { SWEEP, sweepExpiredKeys } from '../executor/idempotency.js';
import type { RateLimit } from '../metrics/metrics.js';
import { clientAddress, tooMany } from './protection.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** runs an operation for any transport (docs/decisions.md, "One way to run an operation") */
    execute: Execute;
    /** each rate limit a call may count against, as @fastify/rate-limit counts a request (unset where it is off) */
    rateLimits: RateLimits;
  }
}

type RateLimits = Record<RateLimit, ReturnType<FastifyInstance['rateLimit']> | undefined>;

/**
 * The executor of this app, with what it runs operations with (the store, the metrics, the
 * delivery worker), and the rate limits a transport counts a call against
 * (plugins/routes.ts, callOf).
 */
export const executorPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    app.decorate(
      'execute',
      createExecutor({
        store: app.store,
        config,
        ...(config.METRICS_TOKEN ? { metrics: app.metrics } : {}),
        generateSign: app.generateSign,
        ...(app.webhooks ? { nudge: (id: string) => app.webhooks!.nudge(id) } : {}),
      }),
    );

    const limits: RateLimits = {
      // The address's: the plugin's global limit, whose counts HTTP requests share.
      address: config.RATE_LIMIT_MAX > 0 ? app.rateLimit() : undefined,
      // The tighter limit of an `x-rate-limit: strict` operation, per verified caller, so that
      // one caller cannot enumerate rebate codes.
      caller:
        config.REBATE_LOOKUP_RATE_LIMIT_MAX > 0
          ? app.rateLimit({
              max: config.REBATE_LOOKUP_RATE_LIMIT_MAX,
              timeWindow: config.RATE_LIMIT_WINDOW_MS,
              groupId: 'lookups',
              keyGenerator: (request: FastifyRequest) => {
                const who = request.caller ? `${request.caller.companyId ?? ''}/${request.caller.sub ?? ''}` : clientAddress(request);
                return createHash('sha256').update(who).digest('base64url');
              },
              errorResponseBuilder: tooMany('caller'),
            })
          : undefined,
    };
    app.decorate('rateLimits', limits);

    // Expired Idempotency-Keys go in bounded batches, on every node (docs/decisions.md, "Retried writes").
    let sweeping: Promise<unknown> = Promise.resolve();
    const sweeper = setInterval(() => {
      sweeping = sweepExpiredKeys(app.store).catch((err: unknown) => app.log.warn({ err }, 'deleting expired Idempotency-Keys failed'));
    }, SWEEP.everyMs).unref();
    app.addHook('onClose', async () => {
      clearInterval(sweeper);
      await sweeping;
    });
  },
  { name: 'executor', dependencies: ['store', 'protection', 'metrics', 'webhooks'] },
);
