import type { Tracing } from './types.js';
import { ConfigError } from '../config.js';

/**
 * Traces with OpenTelemetry (docs/decisions.md, "Traces"), set by the standard OTEL_*
 * variables and on only when an OTLP endpoint is set. Off, nothing of the SDK is loaded:
 * `tracing` stays undefined and the code that would trace asks it and goes on. On, it is the
 * SDK's side (tracing/sdk.ts), loaded by startTracing.
 */
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
  if (!tracing && tracingWanted(env)) tracing = (await import('./sdk.js')).startSdk();
  return tracing;
}
