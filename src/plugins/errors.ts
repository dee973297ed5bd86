import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { refused } from '../domain/refusals.js';
import { errorBody } from '../http/error-body.js';
import { ApiError, clientGone, fromRefusal, pathParameterTooLong, toApiError, Unexpected } from '../contract/errors.js';
import { negotiateFormat, parseQueryString } from '../http/reading.js';
import { toFieldErrors, type AjvErrorLike } from '../contract/validation-errors.js';
import { refusingLimit } from './protection.js';

/** Any error a layer may raise; fastify-openapi-glue's security check wraps its handlers' errors. */
type AnyError = FastifyError & { validation?: AjvErrorLike[]; validationContext?: string; errors?: unknown[] };

const byCode: Record<string, (error: AnyError) => ApiError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (e) =>
    new ApiError(415, 'UnsupportedMediaType', `${e.message}. Send application/json or text/csv.`),
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new ApiError(413, 'PayloadTooLarge', 'The request body is larger than the server accepts.'),
  FST_ERR_CTP_INVALID_JSON_BODY: () =>
    new ApiError(400, 'SerializationException', 'The request body is not valid JSON.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new ApiError(400, 'BadRequest', 'The Content-Length header does not match the body.'),
};

/** Maps any error of any layer to an ApiError: Fastify's and the glue's first, then the core's; undefined means "unexpected" (500). */
export function httpApiError(error: AnyError, request: FastifyRequest): ApiError | undefined {
  // The security scheme's own refusal says why (no token, an expired one), not the glue's summary.
  const cause = error.name === 'Unauthorized' ? error.errors?.find((e) => e instanceof ApiError) : undefined;
  if (cause) return cause as ApiError;
  if (error.validation) {
    if (error.validationContext === 'body' && (request.body === undefined || request.body === null)) {
      return new ApiError(400, 'NotEmpty', 'The request body is required.');
    }
    const errors = toFieldErrors(error.validation, error.validationContext === 'body' ? 'Body' : 'Request');
    if (errors.length > 0) return fromRefusal(refused(errors));
  }
  const mapped = error.code ? byCode[error.code] : undefined;
  return mapped ? mapped(error) : toApiError(error);
}

/**
 * Fastify's `frameworkErrors`: errors of the router, raised before any hook runs — a URL
 * whose percent-encoding is not valid UTF-8 (FST_ERR_BAD_URL) and a path parameter longer
 * than maxParamLength (FST_ERR_MAX_PARAM_LENGTH). Without it Fastify answers them with its
 * own `{error, code, message}` body, not a ResponseStatus. Both are the request's fault: 400,
 * as any other invalid path parameter is.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // No hook has run, so the request id (app.ts) is set here, and the format negotiated here:
  // a refusal is in CSV when CSV was asked for.
  reply.header('x-request-id', request.id);
  try {
    const search = request.url.indexOf('?');
    request.format = negotiateFormat(request, search === -1 ? undefined : parseQueryString(request.url.slice(search + 1)));
  } catch {
    request.format = 'json';
  }
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? pathParameterTooLong()
      : error.code === 'FST_ERR_BAD_URL'
        ? new ApiError(400, 'BadRequest', 'The URL is not validly percent-encoded UTF-8.')
        : (httpApiError(error, request) ?? new Unexpected(error));
  if (apiError.statusCode >= 500) request.log.error({ err: error }, 'router failed');
  return sendError(request, reply, apiError);
}

/** Sends a ResponseStatus body in the negotiated format. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, stack?: string) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.code(error.statusCode);
  const type = request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
  return reply.type(type).send(errorBody(request.format, error, stack));
}

/**
 * Every error, from every layer, leaves as a ResponseStatus. Unexpected errors are
 * logged with the request's context and answered 500 without details (the stack trace
 * only when NODE_ENV=development). A known path with a method it does not serve is 405.
 */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  const development = app.config.NODE_ENV === 'development';
  app.setErrorHandler((error: AnyError, request, reply) => {
    // A client that left mid-request is not the server's fault, whatever failed for want of
    // its connection (its address, its body): noted, never logged as an error.
    if (request.raw.socket?.destroyed) {
      request.log.info({ error: error.code ?? error.name }, 'the client left before the answer');
      return sendError(request, reply, httpApiError(error, request) ?? clientGone());
    }
    const apiError = httpApiError(error, request);
    const limit = refusingLimit(error);
    if (limit && !request.executed) app.metrics.rateLimited(request.routeOptions.config?.operationId, limit);
    // What the executor refused it logged and counted already.
    if (apiError instanceof Unexpected) return sendError(request, reply, apiError, development ? (apiError.fault as Error | undefined)?.stack : undefined);
    if (apiError) {
      if (apiError.statusCode >= 500 && !request.executed) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, apiError);
    }
    request.log.error(
      { err: error, method: request.method, url: request.url, operation: request.routeOptions.config?.operationId },
      'unexpected error',
    );
    return sendError(request, reply, new Unexpected(error), development ? error.stack : undefined);
  });

  app.setNotFoundHandler((request, reply) => {
    // The methods of the path as routed; the message names the path as sent (a predefined
    // route, /api/DeleteTag, is routed as its operation's path).
    const allowed = allowedMethods(app, request.url.split('?')[0]);
    const path = request.originalUrl.split('?')[0];
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new ApiError(405, 'MethodNotAllowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`, [], {
          allow: allowed.join(', '),
        }),
      );
    }
    return sendError(request, reply, new ApiError(404, 'NotFound', `No operation matches ${request.method} ${path}.`));
  });
}, { name: 'errors', dependencies: ['store'] });

const routedMethods = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH'];

/**
 * The methods the router serves on a path. OPTIONS is left out: the CORS plugin answers
 * it on every path, so it says nothing about whether the path exists.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return routedMethods.filter((method) => {
    try {
      return app.findRoute({ method: method as 'GET', url: path }) !== null;
    } catch {
      return false;
    }
  });
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any request
 * exists (headers over the size limit, `Transfer-Encoding` beside `Content-Length`,
 * malformed request lines, a request that took too long). Fastify's default writes its own
 * `{error, message}` body; this writes a ResponseStatus, as every other layer does. The
 * format cannot be negotiated, since nothing was parsed, so it is JSON. The raw bytes Node
 * attaches to the error (headers with credentials) are never logged.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, errorCode, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'RequestHeaderFieldsTooLarge', 'The request headers are larger than the server accepts.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'RequestTimeout', 'The request was not received in time.']
        : [400, 'BadRequest', 'The request is not valid HTTP/1.1.'];
  // No request was parsed, so no caller's id can be kept: a fresh one, logged and answered.
  const id = randomUUID();
  this.log.trace({ code: error.code, status, reqId: id }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ ResponseStatus: { ErrorCode: errorCode, Message: message, Errors: [] } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}


declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: string;
  }
}
