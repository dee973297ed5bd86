import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { createAuthenticator } from '../auth/authenticate.js';
import type { Caller } from '../domain/caller.js';
import { invalid, refuseAny } from '../domain/refusals.js';
import { limitOf } from '../executor/run.js';
import { operations } from '../executor/operations.js';
import { queryNotUtf8 } from '../http/querystring.js';
import { utf8Body } from '../http/utf8.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** who calls, as the bearer token says; set where credentials were asked for */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** the operation a route serves; absent on routes the contract does not describe */
    operationId?: string;
  }
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * What an operation's route does of HTTP's own before the executor runs the operation
 * (executor/run.ts): credentials, where the contract asks for them, are verified before the
 * body is read, so a caller without valid ones learns nothing of what its body would have
 * done; a query string that is not UTF-8 is refused. Fastify validates nothing of the
 * operations' routes: the executor does, with the same schemas for every transport.
 * Registered before the rate limits, which read a route's config when it is added: an
 * operation counted per caller is not counted per address too.
 */
export const routeHooksPlugin = fp(
  async (app: FastifyInstance) => {
    const authenticate = createAuthenticator(app.config);
    // ServiceStack's clients send `Content-Type: application/json` on every request, bodiless
    // DELETEs and GETs too (Node's fetch then adds `Content-Length: 0`): an empty JSON body is
    // no body, not a malformed one. Anything else is read by Fastify's own JSON parser.
    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      if (body.length === 0) return done(null, undefined);
      let text: string;
      try {
        text = utf8Body(body as Buffer);
      } catch (err) {
        return done(err as Error);
      }
      json(request, text, done);
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
          refuseAny(queryNotUtf8(request.query).map((name) => invalid('InvalidEncoding', name, (label) => `${label} is not valid UTF-8.`)));
          return payload;
        },
      ];
    });
  },
  { name: 'route-hooks', dependencies: ['store'] },
);
