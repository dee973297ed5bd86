import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import fp from 'fastify-plugin';
import { createAuthenticator } from '../auth/authenticate.js';
import type { Caller } from '../domain/caller.js';
import { invalid, refused } from '../domain/refusals.js';
import { operations } from '../contract/operations.js';
import { REPLAYED_HEADER } from '../executor/idempotency.js';
import { limitOf, type Call } from '../executor/execute.js';
import { bindRequest, requestFields } from '../http/servicestack-binding.js';
import { contract } from '../contract/contract.js';
import { contentDisposition, parseCsvBody, toCsv } from '../http/csv.js';
import { ApiError, badRequest } from '../contract/errors.js';
import { isPredefinedRoute, negotiateFormat, queryNotUtf8, utf8Body } from '../http/reading.js';

// The operations over HTTP: what HTTP's wire adds around the executor (executor/execute.ts),
// which runs every operation for every transport. ServiceStack's binding is HTTP's: fields
// from any place by names in any case, text read as the schemas' types.

declare module 'fastify' {
  interface FastifyRequest {
    /** who calls, as the bearer token says; set where credentials were asked for */
    caller?: Caller;
    /** what waits for the answer to be sent (a committed write's webhook event) */
    afterAnswer: Array<() => void> | null;
    /** the request is an operation's call, which the executor observed (the metrics plugin does not again) */
    executed: boolean;
  }
  interface FastifyContextConfig {
    /** the operation a route serves; absent on routes the contract does not describe */
    operationId?: string;
  }
}

/** A body's bytes as the parser's text, or the parser's refusal. */
function readText(body: Buffer, done: (err: Error | null, text?: string) => void): string | undefined {
  try {
    return utf8Body(body);
  } catch (err) {
    done(err as Error);
    return undefined;
  }
}

/**
 * JSON and ServiceStack-style CSV (docs/decisions.md, "Wire format"): the answer's format is
 * negotiated first thing, so every later error is written in it too; request bodies are
 * UTF-8, and a `text/csv` one is read into fields as a JSON one is.
 */
export const formatsPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('format', 'json');
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.config.ownMediaTypes) return;
      request.format = negotiateFormat(request);
      // `format` is matched case-insensitively; the contract's enum then sees its own spelling.
      const query = request.query as Record<string, unknown>;
      if (typeof query.format === 'string') query.format = request.format;
    });
    app.addContentTypeParser('text/csv', { parseAs: 'buffer' }, (_request, body, done) => {
      const text = readText(body as Buffer, done);
      if (text === undefined) return;
      try {
        done(null, parseCsvBody(text));
      } catch (err) {
        done(badRequest('SerializationException', (err as Error).message));
      }
    });
    // ServiceStack's clients send `Content-Type: application/json` on every request, bodiless
    // DELETEs and GETs too (Node's fetch then adds `Content-Length: 0`): an empty JSON body is
    // no body, not a malformed one. Anything else is read by Fastify's own JSON parser.
    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      if ((body as Buffer).length === 0) return done(null, undefined);
      const text = readText(body as Buffer, done);
      if (text !== undefined) json(request, text, done);
    });
  },
  { name: 'formats' },
);

/**
 * The executor's view of a call made in `request`: who calls, its id and log, its rate limits,
 * the moment its answer is sent. `whole`: the call is the HTTP request itself, whose address
 * was counted first thing and whose duration is the request's; else one of its tool calls.
 */
export function callOf(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, whole: boolean): Call {
  request.executed ||= whole;
  return {
    caller: request.caller,
    requestId: request.id,
    log: request.log,
    origin: () => ({ method: request.method, url: request.url }),
    startedAt: performance.now() - (whole ? reply.elapsedTime : 0),
    countAgainst: (limit) => (limit === 'address' && whole ? undefined : (app.rateLimits[limit]?.call(app, request, reply) as Promise<void> | undefined)),
    afterAnswer: (then) => {
      (request.afterAnswer ??= []).push(then);
    },
  };
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * HTTP's part of an operation's route: credentials, where the contract asks for them, are
 * verified before the body is read, so a caller without valid ones learns nothing of what
 * its body would have done; a query string that is not UTF-8 is refused. Fastify validates
 * nothing of these routes: the executor does. Registered before the rate limits, which read
 * a route's config when it is added: an operation counted per caller is not counted per
 * address too.
 */
export const routeHooksPlugin = fp(
  async (app: FastifyInstance) => {
    const authenticate = createAuthenticator(app.config);
    app.decorateRequest('afterAnswer', null);
    app.decorateRequest('executed', false);
    // A callback hook: it runs for every answer, and an async one costs a promise each.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.afterAnswer) for (const then of request.afterAnswer) then();
      done();
    });
    app.addHook('onRoute', (routeOptions: RouteOptions) => {
      const operationId = (routeOptions.schema as { operationId?: string } | undefined)?.operationId;
      const facts = operationId === undefined ? undefined : operations().get(operationId);
      if (!facts) return;
      const { body: _body, params: _params, querystring: _querystring, headers: _headers, ...answers } = routeOptions.schema!;
      routeOptions.schema = answers;
      const limit = limitOf(facts, app.config.REBATE_LOOKUP_RATE_LIMIT_MAX);
      routeOptions.config = { ...routeOptions.config, operationId, ...(limit === 'caller' ? { rateLimit: false } : {}) };
      routeOptions.preParsing = [
        ...asList(routeOptions.preParsing),
        async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
          if (facts.authenticated) request.caller = await authenticate(request.headers.authorization);
          const notUtf8 = queryNotUtf8(request.query);
          if (notUtf8.length > 0) throw refused(notUtf8.map((name) => invalid('InvalidEncoding', name, (label) => `${label} is not valid UTF-8.`)));
          return payload;
        },
      ];
    });
  },
  { name: 'route-hooks', dependencies: ['store'] },
);

/**
 * A route per operation, built by fastify-openapi-glue from the contract, hands its request
 * to the executor as the router and the body parser left it, then writes the answer in the
 * negotiated format. The glue is given no security handlers: the route hooks verify
 * credentials and the executor decides access, from the same contract.
 */
export async function operationsPlugin(app: FastifyInstance) {
  await app.register(openapiGlue, {
    specification: structuredClone(contract().document),
    operationResolver: (operationId: string) => {
      const facts = operations().get(operationId);
      if (!facts) throw new Error(`The contract has no operation ${operationId}`);
      const fields = requestFields(facts);
      return async (request: FastifyRequest, reply: FastifyReply) => {
        const parts = {
          params: request.params as Record<string, unknown>,
          query: request.query as Record<string, unknown>,
          body: request.body,
          predefined: isPredefinedRoute(request.raw),
        };
        // Names in any case, values of the schemas' types, each field in the contract's place.
        const assembled = bindRequest(facts, fields, parts);
        // A body made from fields of the query string came in no media type.
        const typed = assembled || parts.body === undefined || facts.bodyMediaTypes.includes(request.mediaType ?? '');
        const input = {
          params: parts.params,
          query: parts.query,
          body: parts.body,
          idempotencyKey: request.headers['idempotency-key'],
          ...(typed ? {} : { bodyRefusal: new ApiError(415, 'UnsupportedMediaType', `Send the request body as ${facts.bodyMediaTypes.join(' or ')}.`) }),
        };
        const outcome = await app.execute(facts, input, callOf(app, request, reply, true));
        if (outcome.replayed) reply.header(REPLAYED_HEADER, 'true');
        if (request.format !== 'csv') return outcome.result;
        reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition(operationId));
        return toCsv(outcome.result, outcome.columns);
      };
    },
  });
}
