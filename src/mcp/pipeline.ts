import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError, pathParameterTooLong } from '../http/errors.js';
import { errorBody, toApiError } from '../plugins/errors.js';
import type { OperationInput } from './call.js';

/**
 * A tool call runs through its operation's own route, in process (docs/decisions.md, "The MCP
 * server"): the route's hooks, as every plugin left them on the route (authentication,
 * binding, roles and company, rate limits, and any hook added later), then its validation
 * with its own schemas, then its handler (transaction, webhook event), and errors mapped
 * as the error plugin maps them. What the router and the body parser would have made of an
 * HTTP request is made from the call's arguments (call.ts); the MCP request is the request
 * the operation sees otherwise: the same caller, address, request id and logger.
 *
 * Hooks are read off the route options as the last `onRoute` hook sees them, so the order is
 * the one Fastify runs. A hook refuses by throwing, as every hook here does; one that answers
 * instead (`reply.send`) ends the call with what it sent.
 */

export interface OperationAnswer {
  /** the HTTP status the operation answered */
  status: number;
  /** the answer's body as the API sends it: the JSON text of its result or of its ResponseStatus */
  text: string;
  /** the text is a JSON object, the result's structured content */
  object: boolean;
}

type Hook = (this: FastifyInstance, ...args: unknown[]) => unknown;
type Validator = ((data: unknown, context?: object) => boolean) & { errors?: unknown[] | null; schemaEnv?: unknown };
type Part = 'params' | 'body' | 'querystring';

interface Route {
  onRequest: Hook[];
  preParsing: Hook[];
  preValidation: Hook[];
  preHandler: Hook[];
  handler: Hook;
  /** what `request.routeOptions` shows of the route */
  view: Record<string, unknown>;
  schema: Record<string, any>;
  validators?: Partial<Record<Part, Validator>>;
  serialize?: (result: unknown) => string;
}

const list = (hooks: unknown): Hook[] => (hooks === undefined || hooks === null ? [] : Array.isArray(hooks) ? hooks : [hooks]) as Hook[];

/** Runs a hook as Fastify does: a promise it returns, or the callback it calls. */
function run(app: FastifyInstance, hook: Hook, args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null, value?: unknown) => (err ? reject(err) : resolve(value));
    let result: unknown;
    try {
      result = hook.apply(app, [...args, done]);
    } catch (err) {
      return reject(err);
    }
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(resolve, reject);
  });
}

/**
 * The reply a call's hooks and handler see: it keeps what they set, for the call alone (the
 * MCP request's own reply is the MCP answer's). Headers are the HTTP answer's and go nowhere.
 */
class AnswerRecorder {
  statusCode = 200;
  payload: unknown;
  get sent(): boolean {
    return this.payload !== undefined;
  }
  header(): this {
    return this;
  }
  headers(): this {
    return this;
  }
  type(): this {
    return this;
  }
  removeHeader(): this {
    return this;
  }
  getHeader(): undefined {
    return undefined;
  }
  code(status: number): this {
    this.statusCode = status;
    return this;
  }
  status(status: number): this {
    return this.code(status);
  }
  send(payload?: unknown): this {
    this.payload = payload ?? '';
    return this;
  }
}

export class OperationRoutes {
  private readonly captured = new Map<string, RouteOptions>();
  private readonly routes = new Map<string, Route>();

  constructor(private readonly app: FastifyInstance) {}

  /** An `onRoute` hook, added after every other plugin's: keeps each operation's route options (not the HEAD route Fastify adds beside a GET). */
  readonly capture = (options: RouteOptions): void => {
    const operationId = options.config?.operationId;
    if (operationId && options.method !== 'HEAD') this.captured.set(operationId, options);
  };

  private route(operationId: string): Route {
    let route = this.routes.get(operationId);
    if (route) return route;
    const options = this.captured.get(operationId);
    if (!options) throw new Error(`The operation ${operationId} has no route`);
    const method = Array.isArray(options.method) ? options.method[0] : options.method;
    route = {
      onRequest: list(options.onRequest),
      preParsing: list(options.preParsing),
      preValidation: list(options.preValidation),
      preHandler: list(options.preHandler),
      handler: options.handler as Hook,
      view: { method, url: options.url, config: { ...options.config, method, url: options.url }, schema: options.schema },
      schema: (options.schema ?? {}) as Record<string, any>,
    };
    this.routes.set(operationId, route);
    return route;
  }

  /** The route's validators and serializer, compiled by the server's compilers on the route's first call. */
  private compiled(route: Route, request: FastifyRequest, reply: FastifyReply) {
    if (!route.validators) {
      const { params, querystring, body } = route.schema;
      const compile = (schema: unknown, part: Part) => (schema === undefined ? undefined : (request.compileValidationSchema(schema as object, part) as Validator));
      route.validators = {
        params: compile(params, 'params'),
        querystring: compile(querystring, 'querystring'),
        body: compile(body?.content ? body.content['application/json']?.schema : body, 'body'),
      };
      const ok = route.schema.response?.['200'];
      const schema = ok?.content ? ok.content['application/json']?.schema : ok;
      route.serialize = schema ? reply.compileSerializationSchema(schema, '200', 'application/json') : JSON.stringify;
    }
    return { validators: route.validators, serialize: route.serialize! };
  }

  /**
   * The operation's answer to `input`, asked by the MCP `request`: its result as the route
   * writes it, or its refusal as the error plugin writes it (JSON).
   */
  async call(operationId: string, input: OperationInput, request: FastifyRequest, reply: FastifyReply): Promise<OperationAnswer & { recordedEvent: string | null }> {
    const started = performance.now();
    const answer = await this.answer(operationId, input, request, reply);
    // Observed as the operation's request, as over HTTP (the metrics plugin's onResponse).
    this.app.metrics.request(operationId, answer.status, (performance.now() - started) / 1000);
    return answer;
  }

  private async answer(operationId: string, input: OperationInput, request: FastifyRequest, reply: FastifyReply): Promise<OperationAnswer & { recordedEvent: string | null }> {
    const route = this.route(operationId);
    const app = this.app;
    const inner = callRequest(request, route, input);
    const recorder = new AnswerRecorder();
    try {
      if (input.pathTooLong) throw pathParameterTooLong();
      const { validators, serialize } = this.compiled(route, request, reply);
      let result: unknown;
      stages: {
        for (const hook of route.onRequest) if ((await run(app, hook, [inner, recorder]), recorder.sent)) break stages;
        for (const hook of route.preParsing) if ((await run(app, hook, [inner, recorder, undefined]), recorder.sent)) break stages;
        for (const hook of route.preValidation) if ((await run(app, hook, [inner, recorder]), recorder.sent)) break stages;
        validate(inner, validators);
        for (const hook of route.preHandler) if ((await run(app, hook, [inner, recorder]), recorder.sent)) break stages;
        result = await route.handler.call(app, inner, recorder);
      }
      const sent = recorder.payload ?? result;
      const text = typeof sent === 'string' ? sent : serialize(sent);
      return { status: recorder.statusCode, text, object: text.charCodeAt(0) === 0x7b, recordedEvent: inner.recordedEvent };
    } catch (err) {
      const apiError = toApiError(err as Parameters<typeof toApiError>[0], inner);
      if (!apiError) request.log.error({ err, operation: operationId }, 'unexpected error');
      else if (apiError.statusCode >= 500) request.log.error({ err, operation: operationId }, 'request failed');
      const error = apiError ?? new ApiError(500, 'InternalServerError', 'An unexpected error occurred.');
      return { status: error.statusCode, text: errorBody('json', error), object: true, recordedEvent: inner.recordedEvent };
    }
  }
}

/**
 * The request a call's hooks and handler see: the MCP request's own properties (its id, raw
 * request, logger, caller, route context) on a new object of the same prototype, with the
 * call's route, path, query and body over them. Not an object whose prototype is the MCP
 * request: that would make each MCP request a prototype, a shape of its own to V8, and slow
 * every access to it and to the call's request (some 40 µs a call, measured).
 */
function callRequest(request: FastifyRequest, route: Route, input: OperationInput): FastifyRequest {
  const inner = Object.assign(Object.create(Object.getPrototypeOf(request)) as object, request) as FastifyRequest & Record<string, unknown>;
  inner.params = input.params;
  inner.query = input.query;
  inner.body = input.body;
  inner.recordedEvent = null;
  // Getters of the prototype: the call's own values.
  Object.defineProperty(inner, 'routeOptions', { value: route.view });
  Object.defineProperty(inner, 'mediaType', { value: input.body === undefined ? undefined : 'application/json', writable: true, enumerable: true });
  return inner;
}

/** The route's validation as Fastify runs it: the path, then the body, then the query string; the first part refused is the refusal. */
const PARTS: ReadonlyArray<[Part, 'params' | 'body' | 'query']> = [
  ['params', 'params'],
  ['body', 'body'],
  ['querystring', 'query'],
];

function validate(request: FastifyRequest, validators: Partial<Record<Part, Validator>>): void {
  for (const [part, property] of PARTS) {
    const validator = validators[part];
    // Fastify validates a body by its media type: a request without one has none to validate.
    if (!validator || (part === 'body' && request.body === undefined)) continue;
    const value = (request as unknown as Record<string, unknown>)[property];
    const data = value === undefined ? null : value;
    const valid = validator.schemaEnv ? validator(data, { parentData: request, parentDataProperty: property }) : validator(data);
    if (!valid) {
      throw Object.assign(new Error(`The ${part} is invalid (${validator.errors?.length ?? 0} errors).`), {
        statusCode: 400,
        validation: validator.errors,
        validationContext: part,
      });
    }
  }
}
