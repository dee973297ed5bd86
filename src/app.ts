import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { sql } from 'kysely';
import { createAuthenticator, type Authenticate } from './auth/authenticate.js';
import type { Config } from './config.js';
import { accessHooks, resolveCompany } from './http/access.js';
import { contract, type JsonSchema, type OperationInfo } from './http/contract.js';
import { coerceToSchema, contentDisposition, parseCsvBody, toCsv } from './http/csv.js';
import { registerDocs } from './http/docs.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { addServerFormats } from './http/formats.js';
import { logRedaction, registerProtection, strictRateLimit } from './http/protection.js';
import { ApiError, badRequest } from './http/errors.js';
import { negotiateFormat, rewriteFormatSuffix } from './http/format.js';
import { parseQueryString } from './http/querystring.js';
import { handlers } from './operations/index.js';
import type { Handler, OperationContext, OperationId } from './operations/types.js';
import { openStore, type Store } from './store/db.js';

export interface AppOptions {
  /** an open store to use (the caller closes it); by default the app opens DATABASE_URL */
  store?: Store;
  /** where logs go (tests capture them); by default stdout */
  logStream?: NodeJS.WritableStream;
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
  }
}

/** Builds the application: every piece registered in order, driven by the contract. */
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
    return503OnClosing: true,
    rewriteUrl: rewriteFormatSuffix,
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: {
      customOptions: {
        allErrors: true,
        strict: false,
        // Off: the request's text is turned into the schema's types by coerceToSchema alone,
        // which reads plain decimal numbers only (Ajv's coercion takes `0x10` and `2.01e2`).
        coerceTypes: false,
        useDefaults: true,
        removeAdditional: false,
        verbose: true,
      },
      onCreate: addServerFormats,
    },
  });

  const store = options.store ?? (await openStore(config.DATABASE_URL));
  if (!options.store) app.addHook('onClose', async () => store.close());
  app.decorate('store', store);
  app.decorate('config', config);
  app.decorateRequest('format', 'json');

  registerErrorHandling(app, config.NODE_ENV === 'development');
  app.addHook('onRequest', async (request) => {
    request.format = negotiateFormat(request);
    // `format` is matched case-insensitively; the contract's enum then sees its own spelling.
    const query = request.query as Record<string, unknown>;
    if (typeof query.format === 'string') query.format = request.format;
  });
  await registerProtection(app, config);
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      try {
        done(null, parseCsvBody(body.toString()));
      } catch (err) {
        done(badRequest('SerializationException', `The CSV request body is invalid: ${(err as Error).message}`));
      }
    },
  );

  const api = contract();
  await registerDocs(app, api, async () => {
    await sql`select 1`.execute(store.db);
  });

  const authenticate = createAuthenticator(config);
  await app.register(openapiGlue, {
    specification: structuredClone(api.document),
    operationResolver: (operationId: string) => {
      const op = api.operations.get(operationId);
      const handler = (handlers as Record<string, Handler<OperationId>>)[operationId];
      if (!op || !handler) throw new Error(`The contract's operation ${operationId} has no handler`);
      // glue spreads these route options (hooks, config, handler) into its route.
      return routeOptions(op, handler, authenticate, store, config) as never;
    },
  });
  return app;
}

/** Columns of the CSV for an operation's answer: the properties of its item or object schema. */
function csvColumns(op: OperationInfo): string[] | undefined {
  const schema = op.okSchema;
  const items = schema?.properties?.Results?.items ?? schema;
  return items?.properties ? Object.keys(items.properties) : undefined;
}

function routeOptions(
  op: OperationInfo,
  handler: Handler<OperationId>,
  authenticate: Authenticate,
  store: Store,
  config: Config,
) {
  const access = accessHooks(op, authenticate);
  const columns = csvColumns(op);
  const bodySchema = op.bodySchema as JsonSchema | undefined;
  return {
    config: {
      operationId: op.operationId,
      ...(op.strictRateLimit && strictRateLimit(config) ? { rateLimit: strictRateLimit(config) } : {}),
    },
    preParsing: async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      // The path and query string are text: they take the schema's types and spelling here,
      // before the company check reads them, by the same strict rules as CSV cells (Ajv's
      // own coercion is off).
      const schema = request.routeOptions.schema;
      if (schema?.params) request.params = coerceToSchema(request.params, schema.params as JsonSchema);
      if (schema?.querystring) request.query = coerceToSchema(request.query, schema.querystring as JsonSchema);
      await access.authenticate(request);
      return payload;
    },
    preValidation: [
      async (request: FastifyRequest) => {
        // Field names match case-insensitively and CSV cells take the schema's types;
        // a blank CompanyId means "the caller's company".
        if (!bodySchema) return;
        // Fastify validates a body per content type and skips a request that has none.
        if (request.body === undefined || request.body === null) {
          throw new ApiError(400, 'NotEmpty', 'The request body is required.');
        }
        // Fastify validates a body only against the schema of its media type, and parses
        // more types than the contract declares (text/plain): any other type would reach
        // the handler unvalidated.
        if (!op.bodyMediaTypes.includes(request.mediaType ?? '')) {
          throw new ApiError(415, 'UnsupportedMediaType', `Send the request body as ${op.bodyMediaTypes.join(' or ')}.`);
        }
        if (typeof request.body !== 'object') return;
        const body = coerceToSchema(request.body, bodySchema as never) as Record<string, unknown>;
        if (typeof body.CompanyId === 'string' && body.CompanyId.trim() === '') delete body.CompanyId;
        request.body = body;
      },
      access.preValidation,
    ],
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const context: OperationContext<OperationId> = {
        params: request.params as never,
        query: request.query as never,
        body: request.body as never,
        caller: request.caller,
        companyId: () => resolveCompany(request),
        store,
        config,
        log: request.log,
      };
      const result = await handler(context);
      if (request.format !== 'csv') return result;
      reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition(op.operationId));
      return toCsv(result, selectColumns(columns, (request.query as { Fields?: unknown }).Fields));
    },
  };
}

/** `Fields` narrows the CSV columns as it narrows the JSON fields (unknown names ignored). */
function selectColumns(columns: string[] | undefined, fields: unknown): string[] | undefined {
  if (!columns || typeof fields !== 'string') return columns;
  const wanted = new Set(fields.split(',').map((f) => f.trim().toLowerCase()));
  const kept = columns.filter((c) => wanted.has(c.toLowerCase()));
  return kept.length > 0 ? kept : columns;
}
