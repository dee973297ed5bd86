import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** What tracing offers the rest of the server, on (tracing/sdk.ts) or off (undefined). */
export interface Tracing {
  /** runs one SQL statement, as a child span of the active span when there is one */
  statement<T>(system: 'sqlite' | 'postgresql', sql: string, run: () => T | Promise<T>): Promise<T>;
  /** an onRequest hook: names the request's server span by its route, and gives it the operationId */
  onRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void;
  /** the active span's ids, for each log line (pino's mixin) */
  logFields(): { trace_id?: string; span_id?: string };
  /** the W3C traceparent of the active span, stored with the event a write records */
  traceparent(): string | undefined;
  /** runs a webhook delivery attempt as a span of its own, linked to the write that recorded the event */
  attempt<T>(delivery: AttemptOf, run: () => Promise<T>): Promise<T>;
  /** how the active attempt ended */
  attempted(statusCode: number | null, succeeded: boolean): void;
  /** sends the spans still buffered, and stops */
  shutdown(): Promise<void>;
}

/** What an attempt span names of its delivery: ids only, never the payload or the endpoint's URL. */
export interface AttemptOf {
  message_id: string;
  endpoint_id: string;
  attempts: number;
  traceparent?: string | null;
}
