import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { generateSign, type SignGenerator } from './domain/rebate-code-sign.js';
import { compilersFactory } from './http/compilers.js';
import { logRedaction } from './tracing/redaction.js';
import { parseQueryString, rewriteUrl } from './http/reading.js';
import { docsPlugin } from './plugins/docs.js';
import { executorPlugin } from './plugins/executor.js';
import { MAX_PATH_PARAMETER } from './contract/errors.js';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { formatsPlugin, operationsPlugin, routeHooksPlugin } from './plugins/routes.js';
import { mcpPlugin } from './plugins/mcp.js';
import { oauthPlugin } from './plugins/oauth.js';
import { loadPlugin } from './plugins/load.js';
import { metricsPlugin } from './plugins/metrics.js';
import { probesPlugin } from './plugins/probes.js';
import { protectionPlugin, securityHeaders } from './plugins/protection.js';
import { storePlugin } from './plugins/store.js';
import { webhooksPlugin } from './plugins/webhooks.js';
import { Readiness } from './http/probes.js';
import type { Store } from './store/db.js';
import { tracing } from './tracing/tracing.js';
import type { ResolveAll } from './webhooks/send.js';

export interface AppOptions {
  /** an open store to use (the caller closes it); by default the app opens DATABASE_URL */
  store?: Store;
  /** where logs go (tests capture them); by default stdout */
  logStream?: NodeJS.WritableStream;
  /** how webhook deliveries resolve host names; by default DNS */
  resolveHost?: ResolveAll;
  /** how new rebate codes draw their signs (tests force a clash with it); by default at random */
  generateSign?: SignGenerator;
  /** the node's phase for /ready, shared with HEALTH_PORT's listener; by default serving once built */
  readiness?: Readiness;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** AppOptions.generateSign, for the operations' context */
    generateSign: SignGenerator;
  }
}

/** A caller's X-Request-Id that is kept: short, and safe in logs and headers. */
const CALLERS_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (Fastify's `genReqId`): the caller's X-Request-Id when it is one
 * CALLERS_REQUEST_ID allows, else a random UUID (docs/decisions.md, "Request ids and
 * proxies"). Read here, not through Fastify's `requestIdHeader`, which takes any value as
 * it comes.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLERS_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * A hop count as Fastify's trustProxy: the nearest `hops` addresses (the connection's peer,
 * then X-Forwarded-For from the right) are proxies, whatever they are. Fastify 5.12 no
 * longer takes a number, since it trusts a client that reaches the node directly too; the
 * docs/postgresql.md says so, and to give the balancer's addresses where they are known.
 */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * Builds the application: the Fastify instance with its server options, then the plugins
 * in order — the store, ResponseStatus errors, formats, load shedding, the probes, the contract's per-route hooks
 * (before the rate limits read the routes), protection, the metrics, docs, the webhook deliveries,
 * the executor that runs every operation, the MCP server and last the operations' routes.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: logRedaction,
      ...(options.logStream ? { stream: options.logStream } : {}),
      // trace_id and span_id on every line while tracing is on (docs/decisions.md, "Traces")
      ...(tracing ? { mixin: tracing.logFields } : {}),
    },
    bodyLimit: config.BODY_LIMIT,
    connectionTimeout: config.REQUEST_TIMEOUT_MS * 2,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: 5000,
    http: {
      // A client that sends its headers and then trickles the body must be cut off at
      // REQUEST_TIMEOUT_MS too; Node's defaults (60 s headers, a check every 30 s) let it run
      // much longer (test/robustness/limits.test.ts).
      headersTimeout: Math.min(60_000, config.REQUEST_TIMEOUT_MS),
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.REQUEST_TIMEOUT_MS / 4))),
    },
    // What is read while the node closes is answered by the load plugin, as a ResponseStatus.
    return503OnClosing: false,
    // X-Request-Id: kept or made (requestId), in every log line of the request as `reqId`,
    // and on every answer (the hook below; the router's and the parser's refusals in errors.ts).
    requestIdHeader: false,
    genReqId: requestId,
    // Whose X-Forwarded-For names the client (TRUST_PROXY): its address is what rate limits count and logs show.
    trustProxy: typeof config.TRUST_PROXY === 'number' ? trustHops(config.TRUST_PROXY) : config.TRUST_PROXY,
    // Format suffixes (.csv, .json) and ServiceStack's predefined routes (/api/{OperationId}).
    rewriteUrl,
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER },
    schemaController: { compilersFactory },
    // Fastify's own summary joins every Ajv message into one string; the error plugin
    // answers from the errors themselves (validation-errors.ts), so the summary stays short.
    schemaErrorFormatter: (errors, dataVar) => new Error(`The ${dataVar} is invalid (${errors.length} errors).`),
  });

  if (tracing) app.addHook('onRequest', tracing.onRequest);
  app.decorate('generateSign', options.generateSign ?? generateSign);
  // Before the plugins' hooks, so that every answer carries them, their refusals included:
  // the request's id, and helmet's security headers (worked out once, protection.ts).
  const headers = securityHeaders();
  // An app built without a Readiness (the tests' own) serves as soon as it is built.
  const readiness = options.readiness ?? new Readiness('serving');
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(headers);
    // Draining: keep-alive clients are told to reconnect, to another node, while this one still serves.
    if (readiness.phase === 'draining') reply.header('connection', 'close');
    done();
  });
  await app.register(storePlugin, { config, store: options.store });
  await app.register(errorsPlugin);
  await app.register(formatsPlugin);
  await app.register(loadPlugin);
  await app.register(probesPlugin, { readiness });
  await app.register(routeHooksPlugin);
  await app.register(protectionPlugin);
  await app.register(metricsPlugin);
  await app.register(docsPlugin);
  await app.register(webhooksPlugin, { resolve: options.resolveHost });
  await app.register(executorPlugin);
  await app.register(oauthPlugin);
  await app.register(mcpPlugin);
  await app.register(operationsPlugin);
  return app;
}
