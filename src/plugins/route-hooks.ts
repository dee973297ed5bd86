import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { createAuthenticator } from '../auth/authenticate.js';
import { nulCharacterErrors } from '../domain/nul.js';
import { invalid, refuseAny } from '../domain/refusals.js';
import { coerceToSchema } from '../http/coercion.js';
import { ApiError } from '../http/errors.js';
import { queryNotUtf8 } from '../http/querystring.js';
import { utf8Body } from '../http/utf8.js';
import { bindBody, bindPathAndQuery, requestFields } from '../http/servicestack-binding.js';
import { access, authentication } from './access.js';
import { strictRateLimit } from './protection.js';
import { routeContract, type RouteContract } from './route-contract.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the contract of an operation's route; absent on routes the contract does not describe */
    route?: RouteContract;
    operationId?: string;
  }
}

const asList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * Field names match case-insensitively and CSV cells take the schema's types; a blank
 * CompanyId means "the caller's company". Refuses nothing: the access step reads the result.
 */
function shapeBody(route: RouteContract, request: FastifyRequest): void {
  if (!route.body || request.body === null || typeof request.body !== 'object') return;
  const body = coerceToSchema(request.body, route.body) as Record<string, unknown>;
  if (typeof body.CompanyId === 'string' && body.CompanyId.trim() === '') delete body.CompanyId;
  request.body = body;
}

/**
 * The body's presence and media type, before Fastify validates it. A body made from body
 * fields in the query string alone (`assembled`) came in no media type, so Fastify, which
 * picks a body's validator by its media type, would not validate it: it is validated here,
 * with the route's own compiler.
 */
function checkBody(route: RouteContract, request: FastifyRequest, assembled: boolean): void {
  if (!route.body) return;
  // Fastify validates a body per content type and skips a request that has none.
  if (request.body === undefined || request.body === null) throw new ApiError(400, 'NotEmpty', 'The request body is required.');
  // Fastify parses more types than the contract declares (text/plain): any other type would
  // reach the handler unvalidated.
  if (!assembled && !route.bodyMediaTypes.includes(request.mediaType ?? '')) {
    throw new ApiError(415, 'UnsupportedMediaType', `Send the request body as ${route.bodyMediaTypes.join(' or ')}.`);
  }
  if (assembled && typeof request.body === 'object') {
    const validate = request.compileValidationSchema(route.body as Record<string, unknown>);
    if (!validate(request.body)) throw Object.assign(new Error('The request body is invalid.'), { validation: validate.errors, validationContext: 'body' });
  }
}

/**
 * One onRoute hook turns each operation's contract, as the glue put it on the route, into
 * its hooks, in the order a request meets them: the path and query take the schema's types
 * and spelling; authentication, where the contract asks for credentials, before the body is
 * read; ServiceStack's binding of fields sent in another place than the contract's
 * (servicestack-binding.ts) and the body's types; the one access step (roles and the company
 * the call acts on); then Fastify validates. Registered before the rate limits, which read
 * the route's config when the route is added and count a request before all of this.
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
      const route = routeContract(routeOptions.schema);
      if (!route) return;
      const authenticated = authentication(route, authenticate);
      const authorize = access(route);
      const fields = requestFields(route);
      const limit = route.strictRateLimit ? strictRateLimit(app.config) : undefined;
      routeOptions.config = { ...routeOptions.config, route, operationId: route.operationId, ...(limit ? { rateLimit: limit } : {}) };
      routeOptions.preParsing = [
        ...asList(routeOptions.preParsing),
        async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
          const notUtf8 = queryNotUtf8(request.query);
          // The path and query string are text: they take the schema's types and spelling
          // here (Ajv's own coercion is off).
          bindPathAndQuery(route, fields, request);
          if (authenticated) await authenticated(request);
          refuseAny(notUtf8.map((name) => invalid('InvalidEncoding', name, (label) => `${label} is not valid UTF-8.`)));
          return payload;
        },
      ];
      routeOptions.preValidation = [
        ...asList(routeOptions.preValidation),
        async (request: FastifyRequest) => {
          const assembled = bindBody(route, fields, request);
          shapeBody(route, request);
          authorize(request);
          checkBody(route, request, assembled);
          // Every value is text or typed by now: one check for NUL characters in all of them.
          refuseAny([request.params, request.query, request.body].flatMap((values) => nulCharacterErrors(values)));
        },
      ];
    });
  },
  { name: 'route-hooks', dependencies: ['store'] },
);
