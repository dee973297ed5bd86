import type { IncomingMessage } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Link } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import { maskUrl } from './redaction.js';
import type { AttemptOf, Tracing } from './types.js';

// Loaded only when tracing is on (tracing.ts). What a span may hold is the logs' rule
// (docs/decisions.md, "Traces"): never a query value, a credential header or a body value.

/** The attribute that carries the operationId on the server span. */
export const OPERATION_ID = 'openapi.operation_id';

/** How long a stopping server waits for its last spans to be sent. */
const SHUTDOWN_MS = 2000;

const tracer = () => trace.getTracer('booking-admin-api');

/** The query string as the logs keep it: the contract's field names, never a value; undefined when none is left. */
function maskedQuery(request: IncomingMessage): string | undefined {
  const masked = maskUrl(request.url ?? '/');
  const start = masked.indexOf('?');
  return start < 0 ? undefined : masked.slice(start + 1);
}

/** Fastify's route (`/resource/:Id`) as the contract writes it (`/resource/{Id}`). */
const contractPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** A stored traceparent as a link to the span it names, if it names one. */
function linkTo(traceparent: string | null | undefined): Link[] {
  if (!traceparent) return [];
  const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return linked && trace.isSpanContextValid(linked) ? [{ context: linked }] : [];
}

/**
 * Starts the Node SDK: the exporter, protocol, service name and sampler come from the OTEL_*
 * variables, as the SDK reads them. Traces alone: metrics are /metrics' (prom-client), and logs
 * stay pino's. The HTTP instrumentation makes one SERVER span per request; outgoing requests
 * are left alone, so no trace context is ever added to a webhook delivery (receivers are not
 * ours to trace) and each attempt is a span of the worker's own.
 */
export function startSdk(env: NodeJS.ProcessEnv = process.env): Tracing {
  const named = env.OTEL_SERVICE_NAME?.trim() || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : 'booking-admin-api',
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        disableOutgoingRequestInstrumentation: true,
        // The hook's attributes replace the instrumentation's own: the query keeps its names, not its values.
        startIncomingSpanHook: (request) => ({ 'url.query': maskedQuery(request) }),
      }),
    ],
  });
  sdk.start();

  return {
    async statement(system, sql, run) {
      const parent = trace.getActiveSpan();
      // Only within a live span: statements outside a request (the worker's polls) would each start a trace.
      if (!parent?.isRecording()) return run();
      const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
      const span = tracer().startSpan(operation, {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql },
      });
      try {
        return await run();
      } catch (err) {
        // The code alone: a database's message may quote the values it refused.
        const code = (err as { code?: unknown }).code;
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
        throw err;
      } finally {
        span.end();
      }
    },

    onRequest(request, _reply, done) {
      const rpc = core.getRPCMetadata(context.active());
      if (rpc?.type === core.RPCType.HTTP) {
        // The instrumentation names the span "METHOD route" from this when the answer is sent.
        if (request.routeOptions.url) rpc.route = contractPath(request.routeOptions.url);
        const operationId = request.routeOptions.config?.operationId;
        if (operationId) rpc.span.setAttribute(OPERATION_ID, operationId);
      }
      done();
    },

    logFields() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },

    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },

    attempt(delivery: AttemptOf, run) {
      const span = tracer().startSpan(
        'webhook attempt',
        {
          kind: SpanKind.CLIENT,
          root: true,
          links: linkTo(delivery.traceparent),
          attributes: { 'webhook.message_id': delivery.message_id, 'webhook.endpoint_id': delivery.endpoint_id, 'webhook.attempt': delivery.attempts + 1 },
        },
        ROOT_CONTEXT,
      );
      return context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        try {
          return await run();
        } finally {
          span.end();
        }
      });
    },

    attempted(statusCode, succeeded) {
      const span = trace.getActiveSpan();
      if (!span) return;
      if (statusCode !== null) span.setAttribute('http.response.status_code', statusCode);
      if (!succeeded) span.setStatus({ code: SpanStatusCode.ERROR });
    },

    // At most SHUTDOWN_MS: a collector that does not answer must not hold a stopping node past its grace.
    shutdown: () => Promise.race([sdk.shutdown(), new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]),
  };
}
