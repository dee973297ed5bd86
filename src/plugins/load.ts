import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** under-pressure's own handler for the route: NEVER_SHED's lets every request through */
    pressureHandler?: () => void;
  }
}

/** The route config of what is never shed: the probes and /metrics. */
export const NEVER_SHED = { pressureHandler: () => undefined };

/** How often the event loop's delay and the heap are sampled: a storm is met within this. */
export const SAMPLE_INTERVAL_MS = 100;


/** What a shed request is answered: cheap, and before any of its work is done. */
export const overloaded = () =>
  new ApiError(503, 'ServiceUnavailable', 'The node is overloaded; retry shortly, or on another node.', [], { 'retry-after': '1' });

/**
 * Load shedding with @fastify/under-pressure (docs/operating.md, "Overload"): while the event
 * loop's mean delay is over its limit, the excess share of requests (all of them while the heap
 * is over its own) is answered 503 with `Retry-After` on a closing connection, before any work.
 * The probes and /metrics are never shed. MAX_CONNECTIONS closes connections beyond it.
 */
export const loadPlugin = fp(
  async (app: FastifyInstance) => {
    const { SHED_EVENT_LOOP_DELAY_MS, SHED_HEAP_USED_BYTES, MAX_CONNECTIONS } = app.config;
    if (MAX_CONNECTIONS > 0) {
      app.server.maxConnections = MAX_CONNECTIONS;
      app.server.on('drop', () => app.metrics.connectionDropped());
    }
    if (SHED_EVENT_LOOP_DELAY_MS === 0 && SHED_HEAP_USED_BYTES === 0) return;
    // Nothing is shed until two samples after the node listens: the samples before hold the
    // start-up's own long turns (the schemas compiled as it starts to listen), not load.
    let shedFrom = Number.POSITIVE_INFINITY;
    app.addHook('onListen', async () => {
      shedFrom = performance.now() + 2 * SAMPLE_INTERVAL_MS;
    });
    await app.register(underPressure, {
      maxEventLoopDelay: SHED_EVENT_LOOP_DELAY_MS,
      maxHeapUsedBytes: SHED_HEAP_USED_BYTES,
      sampleInterval: SAMPLE_INTERVAL_MS,
      pressureHandler: (request, reply, type, value) => {
        if (performance.now() < shedFrom) return;
        const delayed = type === 'eventLoopDelay';
        // Only the excess is shed: at twice the limit's delay, every other request.
        if (delayed && value !== undefined && Math.random() < SHED_EVENT_LOOP_DELAY_MS / value) return;
        app.metrics.shed(request.routeOptions.config.operationId, delayed ? 'event_loop_delay' : 'heap');
        // Closed after the answer: the client's retry then waits in the kernel's accept queue,
        // or goes to another node, rather than taking a turn of this event loop at once.
        reply.header('connection', 'close');
        reply.send(overloaded());
      },
    });
  },
  { name: 'load', dependencies: ['store', 'formats'] },
);
