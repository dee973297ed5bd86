import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ConfigError } from './config.js';

/**
 * Traces with OpenTelemetry (docs/decisions.md, "Traces"), set by the standard OTEL_*
 * variables and on only when an OTLP endpoint is set. Off, nothing of the SDK is loaded:
 * `tracing` stays undefined and the code that would trace asks it and goes on. On, it is the
 * SDK's side (tracing/sdk.ts), loaded by startTracing.
 */
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

export let tracing: Tracing | undefined;

const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (!(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim())) return false;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = env[name]?.trim();
    if (value && !PROTOCOLS.includes(value)) throw new ConfigError(`${name} must be one of ${PROTOCOLS.join(', ')}; it is "${value}".`);
  }
  return true;
}

/**
 * Starts tracing when the environment asks for it, before the modules that load Fastify:
 * the HTTP instrumentation patches Node's http as they load it (src/server.ts).
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracing && tracingWanted(env)) tracing = (await import('./tracing/sdk.js')).startSdk();
  return tracing;
}
