import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { generateSign, type SignGenerator } from './domain/rebate-code-sign.js';
import { addServerFormats, serverAjvOptions } from './http/ajv.js';
import { logRedaction } from './http/log-redaction.js';
import { parseQueryString } from './http/querystring.js';
import { rewriteUrl } from './http/servicestack-routes.js';
import { docsPlugin } from './plugins/docs.js';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { formatsPlugin } from './plugins/wire-format.js';
import { mcpPlugin } from './plugins/mcp.js';
import { operationsPlugin } from './plugins/operations.js';
import { protectionPlugin } from './plugins/protection.js';
import { routeHooksPlugin } from './plugins/route-hooks.js';
import { storePlugin } from './plugins/store.js';
import { webhooksPlugin } from './plugins/webhooks.js';
import type { Store } from './store/db.js';
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
}

declare module 'fastify' {
  interface FastifyInstance {
    /** AppOptions.generateSign, for the operations' context */
    generateSign: SignGenerator;
  }
}

/**
 * Builds the application: the Fastify instance with its server options, then the plugins
 * in order — the store, ResponseStatus errors, formats, the contract's per-route hooks
 * (before the rate limits read the routes), protection, docs, the webhook deliveries, and
 * last the operations.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: logRedaction,
      ...(options.logStream ? { stream: options.logStream } : {}),
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
    return503OnClosing: true,
    // Format suffixes (.csv, .json) and ServiceStack's predefined routes (/api/{OperationId}).
    rewriteUrl,
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: serverAjvOptions, onCreate: addServerFormats },
    // Fastify's own summary joins every Ajv message into one string; the error plugin
    // answers from the errors themselves (validation-errors.ts), so the summary stays short.
    schemaErrorFormatter: (errors, dataVar) => new Error(`The ${dataVar} is invalid (${errors.length} errors).`),
  });

  app.decorate('generateSign', options.generateSign ?? generateSign);
  await app.register(storePlugin, { config, store: options.store });
  await app.register(errorsPlugin);
  await app.register(formatsPlugin);
  await app.register(routeHooksPlugin);
  await app.register(protectionPlugin);
  await app.register(docsPlugin);
  await app.register(webhooksPlugin, { resolve: options.resolveHost });
  await app.register(operationsPlugin);
  await app.register(mcpPlugin);
  return app;
}
