import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../contract/errors.js';
import { NEVER_SHED } from './load.js';
import { scrapeFigures } from '../metrics/database.js';
import { createMetrics, noMetrics, type MetricsRecorder } from '../metrics/metrics.js';
import { isPostgres } from '../store/statements.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** what the server counts for GET /metrics; it counts nothing where METRICS_TOKEN is unset */
    metrics: MetricsRecorder;
  }
  interface FastifyContextConfig {
    ownMediaTypes?: boolean;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The token of an `Authorization: Bearer <token>` header, if it is one. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * `GET /metrics` for Prometheus (docs/decisions.md, "Metrics"), on only when METRICS_TOKEN is
 * set: it then asks for `Authorization: Bearer <METRICS_TOKEN>` (else 401); unset, the path is
 * unknown (404) and nothing is counted. Like /health it is no operation of the contract.
 * Every answered request is observed once: an operation's call by the executor, whichever
 * transport made it; any other request by the one onResponse hook here.
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    const token = app.config.METRICS_TOKEN;
    if (!token) {
      app.decorate('metrics', noMetrics);
      return;
    }
    const metrics = createMetrics({ pool: isPostgres(app.store.db) });
    app.decorate('metrics', metrics);
    app.addHook('onResponse', (request, reply, done) => {
      if (!request.executed) metrics.request(request.routeOptions.config.operationId, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    // Compared as digests of equal length in constant time: the answer tells nothing of how
    // much of a guess was right.
    const expected = digest(token);
    const authorized = (request: FastifyRequest) => {
      const sent = bearerToken(request.headers.authorization);
      return sent !== undefined && timingSafeEqual(digest(sent), expected);
    };
    // A scrape is not counted by the per-address limit: Prometheus scrapes every few seconds,
    // and behind a balancer it would share the clients' count and miss scrapes when they are
    // busiest. A refused request counts, as on /mcp, so the token cannot be guessed at speed.
    const limit = app.config.RATE_LIMIT_MAX > 0 ? app.rateLimit() : undefined;
    const refuse = async (request: FastifyRequest, reply: FastifyReply) => {
      if (authorized(request)) return;
      if (limit) await limit.call(app, request, reply);
      throw new ApiError(401, 'Unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', [], {
        'www-authenticate': 'Bearer realm="metrics"',
      });
    };

    app.route({
      method: 'GET',
      url: '/metrics',
      // Prometheus asks for its own media types; an error is still a JSON ResponseStatus.
      config: { rateLimit: false, ownMediaTypes: true, ...NEVER_SHED },
      onRequest: refuse,
      handler: async (request, reply) => {
        const figures = await scrapeFigures(app.store);
        if (figures.error) request.log.warn({ err: figures.error }, 'the webhook outbox could not be read for /metrics');
        const { running, waiting } = app.backlog;
        const { contentType, text } = await metrics.exposition({ ...figures, backlog: { running, waiting } });
        return reply.type(contentType).send(text);
      },
    });
  },
  { name: 'metrics', dependencies: ['store', 'protection', 'load'] },
);
