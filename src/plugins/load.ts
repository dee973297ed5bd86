import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import { ApiError } from '../contract/errors.js';
import type { ShedReason } from '../metrics/metrics.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** under-pressure's own handler for the route: NEVER_SHED's lets every request through */
    pressureHandler?: () => void;
    /** the route is never shed nor queued: the probes and /metrics */
    neverShed?: boolean;
  }
  interface FastifyInstance {
    /** what this node runs and holds waiting, for the metrics */
    backlog: Backlog;
  }
}

/** The route config of what is never shed: the probes and /metrics. */
export const NEVER_SHED = { neverShed: true, pressureHandler: () => undefined };

/** What a shed request is answered: cheap, and before any of its work is done. */
export const overloaded = () =>
  new ApiError(503, 'ServiceUnavailable', 'The node is overloaded; retry shortly, or on another node.', [], { 'retry-after': '1' });

/** What a request read while the node closes is answered. */
const closing = () => new ApiError(503, 'ServiceUnavailable', 'The node is shutting down; retry on another node.', [], { 'retry-after': '1' });

/**
 * Load shedding on this node's own backlog (docs/operating.md, "Overload"; docs/decisions.md,
 * "Shedding on the node's own backlog"): at most MAX_IN_FLIGHT requests run, the rest wait in
 * order, and a request that has waited SHED_QUEUE_WAIT_MS in this process is answered 503 with
 * `Retry-After` before any of its work. SHED_HEAP_USED_BYTES sheds every request while the heap
 * is over it (under-pressure). The probes and /metrics are never shed. Sheds are counted, and
 * logged as one `warn` line a second at most. MAX_CONNECTIONS closes connections beyond it.
 */
export const loadPlugin = fp(
  async (app: FastifyInstance) => {
    const { SHED_QUEUE_WAIT_MS, MAX_IN_FLIGHT, SHED_HEAP_USED_BYTES, MAX_CONNECTIONS } = app.config;
    app.server.on('connection', (socket: AnsweredSocket) => {
      socket[ANSWERED_AT] = performance.now();
    });
    if (MAX_CONNECTIONS > 0) {
      app.server.maxConnections = MAX_CONNECTIONS;
      app.server.on('drop', () => app.metrics.connectionDropped());
    }

    let shedThisSecond = 0;
    let summary: NodeJS.Timeout | undefined;
    const summarize = () => {
      clearTimeout(summary);
      summary = undefined;
      if (shedThisSecond > 0) app.log.warn({ shed: shedThisSecond }, `shed ${shedThisSecond} requests in the last second: this node is overloaded`);
      shedThisSecond = 0;
    };
    const shed = (request: FastifyRequest, reply: FastifyReply, reason: ShedReason) => {
      app.metrics.shed(request.routeOptions.config.operationId, reason);
      shedThisSecond += 1;
      summary ??= setTimeout(summarize, 1000).unref();
      sendError(request, reply, overloaded());
    };
    app.addHook('onClose', async () => summarize());

    const backlog = new Backlog(MAX_IN_FLIGHT, SHED_QUEUE_WAIT_MS, (waiter) => shed(waiter.request, waiter.reply, 'queue_wait'));
    app.decorate('backlog', backlog);
    // Requests read after close() began (pipelined behind one in flight) are answered here,
    // as a ResponseStatus, rather than by Fastify's own 503 (app.ts turns that off).
    let closed = false;
    const refuse = ({ request, reply }: { request: FastifyRequest; reply: FastifyReply }) => {
      reply.header('connection', 'close');
      sendError(request, reply, closing());
    };
    app.addHook('preClose', async () => {
      closed = true;
      backlog.close(refuse);
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (closed) return refuse({ request, reply });
      if (request.routeOptions.config.neverShed) return done();
      backlog.admit({ request, reply, start: done });
    });

    if (SHED_HEAP_USED_BYTES > 0) {
      await app.register(underPressure, {
        maxHeapUsedBytes: SHED_HEAP_USED_BYTES,
        sampleInterval: 100,
        pressureHandler: (request, reply) => shed(request, reply, 'heap'),
      });
    }
  },
  { name: 'load', dependencies: ['store', 'formats'] },
);

/** A request the node has read: it starts (its hooks go on) or is shed. */
export interface Waiter {
  request: FastifyRequest;
  reply: FastifyReply;
  start: () => void;
}

/** When a connection was accepted, or its last answer sent: ms (performance.now). */
export const ANSWERED_AT = Symbol('answeredAt');
type AnsweredSocket = Socket & { [ANSWERED_AT]?: number };

interface Entry extends Waiter {
  /** since when it may have waited: its turn's start, or its connection's last answer if later (ms, performance.now) */
  readAt: number;
  state: 'waiting' | 'running' | 'done';
}

/**
 * This node's own backlog (docs/decisions.md, "Shedding on the node's own backlog"): what it
 * runs and what waits to run, and how long the oldest has waited. A request's wait starts with
 * the turn of the event loop that read it (it waits for those read before it in that turn), or
 * when its connection was accepted or last answered, if later. At most `maxRunning` run at once
 * (0: no cap); the rest wait in order of arrival. A request that has waited `maxWaitMs` (0: no
 * limit) is shed, as it arrives or as its turn to run comes; so is one that arrives while the
 * oldest waiting one is past it. A lone request never waits, however busy the host is.
 */
export class Backlog {
  running = 0;
  private readonly queue: Entry[] = [];
  private head = 0;
  private turnStart = 0;
  private sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxRunning: number,
    private readonly maxWaitMs: number,
    private readonly shed: (waiter: Waiter) => void,
  ) {}

  get waiting(): number {
    return this.queue.length - this.head;
  }

  admit(waiter: Waiter): void {
    const now = performance.now();
    if (this.turnStart === 0) {
      this.turnStart = now;
      setImmediate(this.endTurn);
    }
    // It cannot have waited since before its connection was accepted or last answered.
    const socket: AnsweredSocket | undefined = waiter.request.raw.socket;
    const entry: Entry = Object.assign(waiter, { readAt: Math.max(this.turnStart, socket?.[ANSWERED_AT] ?? 0), state: 'waiting' as const });
    waiter.reply.raw.once('close', () => {
      if (socket) socket[ANSWERED_AT] = performance.now();
      if (entry.state === 'running') this.finished();
      entry.state = 'done';
    });
    const oldest = this.oldest();
    const queued = oldest !== undefined;
    if (this.overdue(entry, now) || (queued && this.overdue(oldest, now))) return this.drop(entry);
    if (!queued && (this.maxRunning === 0 || this.running < this.maxRunning)) return this.run(entry);
    this.queue.push(entry);
    if (this.maxWaitMs > 0) this.sweep ??= setTimeout(this.sweepOverdue, Math.max(10, this.maxWaitMs / 4)).unref();
  }

  /** The node closes: every waiting request is answered by `refuse` instead. */
  close(refuse: (waiter: Waiter) => void): void {
    clearTimeout(this.sweep);
    for (let entry = this.take(); entry; entry = this.take()) this.drop(entry, refuse);
  }

  private readonly endTurn = () => {
    this.turnStart = 0;
  };

  private overdue(entry: Entry, now: number): boolean {
    return this.maxWaitMs > 0 && now - entry.readAt > this.maxWaitMs;
  }

  private run(entry: Entry) {
    entry.state = 'running';
    this.running += 1;
    entry.start();
  }

  /** The oldest request still waiting, after dropping those whose clients left. */
  private oldest(): Entry | undefined {
    while (this.head < this.queue.length && this.queue[this.head].state !== 'waiting') this.head += 1;
    if (this.head > 0 && (this.head === this.queue.length || this.head > 1024)) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return this.queue[this.head];
  }

  /** Takes the oldest request still waiting off the queue. */
  private take(): Entry | undefined {
    const entry = this.oldest();
    if (entry) this.head += 1;
    return entry;
  }

  private finished() {
    this.running -= 1;
    const now = performance.now();
    while (this.maxRunning === 0 || this.running < this.maxRunning) {
      const entry = this.take();
      if (!entry) return;
      if (this.overdue(entry, now)) this.drop(entry);
      else this.run(entry);
    }
  }

  private drop(entry: Entry, answer: (waiter: Waiter) => void = this.shed) {
    entry.state = 'done';
    answer(entry);
  }

  /** Sheds what has waited too long while nothing finished (a stalled store, a long request). */
  private readonly sweepOverdue = () => {
    this.sweep = undefined;
    const now = performance.now();
    for (let entry = this.oldest(); entry && this.overdue(entry, now); entry = this.oldest()) this.drop(this.take()!);
    if (this.oldest()) this.sweep = setTimeout(this.sweepOverdue, Math.max(10, this.maxWaitMs / 4)).unref();
  };
}
