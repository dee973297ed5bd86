import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { notEmpty, refused } from '../domain/refusals.js';
import { createServerAjv } from '../http/ajv.js';
import { ApiError, forbidden, unauthorized } from '../http/errors.js';
import { bindRequest, nulCharacterErrors, requestFields, shapeAnswer, type RequestFields, type RequestParts } from '../http/servicestack-binding.js';
import { toFieldErrors } from '../http/validation-errors.js';
import { handlers } from '../operations/index.js';
import type { Handler, OperationContext, OperationId } from '../operations/types.js';
import { strictRateLimit } from '../plugins/protection.js';
import type { Store } from '../store/db.js';
import { inTransaction } from '../store/statements.js';
import { tracing } from '../tracing.js';
import { recordEvent, type WebhookEventType } from '../store/repositories/webhook-messages.js';
import { fingerprint, keyOf, KeyRefusal, replayedResult, runOnce, SWEEP, sweepExpiredKeys } from './idempotency.js';
import type { OperationFacts } from './operations.js';

/** A call of an operation as its transport read it: the fields where they were sent, and the body's media type. */
export interface OperationInput extends RequestParts {
  /** the media type the body came in; undefined where none was sent */
  mediaType?: string;
  /** the Idempotency-Key as sent (a write's header, a write tool's argument); undefined where none was */
  idempotencyKey?: unknown;
}

/** Who calls, and the transport's request and reply the call is made in (its id, logger, address, headers). */
export interface Call {
  caller?: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
  /** the transport counted the request against its address's rate limit already (HTTP does, first thing) */
  addressCounted: boolean;
}

/** What a call answered: the result (shaped by `Fields` and `Meta`), the columns CSV writes of it, and the webhook event it recorded. */
export interface Outcome {
  result: unknown;
  columns?: string[];
  recordedEvent: string | null;
  /** the stored answer of an earlier request with the same Idempotency-Key */
  replayed?: boolean;
}

export type RunOperation = (facts: OperationFacts, input: OperationInput, call: Call) => Promise<Outcome>;

declare module 'fastify' {
  interface FastifyInstance {
    /** runs an operation for any transport (docs/decisions.md, "One way to run an operation") */
    runOperation: RunOperation;
  }
}

/** The limit a call counts against: the caller's tighter one where the operation has it and it is on, else its address's. */
export const limitOf = (facts: OperationFacts, lookupLimit: number): 'caller' | 'address' =>
  facts.rateLimit === 'strict' && lookupLimit > 0 ? 'caller' : 'address';

/** What the executor keeps of an operation after its first call: its fields by name and its compiled schemas. */
interface Prepared {
  fields: RequestFields;
  validators: Array<['params' | 'body' | 'query', string, ValidateFunction]>;
}

/**
 * Each operation's fields and validators, made on its first call and kept for the process:
 * every app of the process serves the same contract (a test process builds hundreds).
 */
let ajv: ReturnType<typeof createServerAjv> | undefined;
const prepared = new Map<string, Prepared>();
function prepare(facts: OperationFacts): Prepared {
  ajv ??= createServerAjv();
  const compile = ajv.compile.bind(ajv);
  // Judged in Fastify's order (the path, the body, the query string): the first refused part is the refusal.
  const parts = [['params', 'params', facts.params], ['body', 'body', facts.body], ['query', 'querystring', facts.query]] as const;
  const validators = parts.flatMap(([part, name, schema]) => (schema ? [[part, name, compile(schema)] as Prepared['validators'][number]] : []));
  const made = { fields: requestFields(facts), validators };
  prepared.set(facts.operationId, made);
  return made;
}

/**
 * The one way to run an operation, for HTTP and MCP alike: the contract's facts of the
 * operation decide the steps, in the order the product decisions give (docs/decisions.md,
 * "One way to run an operation"). Refusals are thrown (ApiError, Refusal); each transport
 * writes them in its own way.
 */
export const executorPlugin = fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    const limits = {
      // The address's: the plugin's global limit, whose counts HTTP requests share.
      address: config.RATE_LIMIT_MAX > 0 ? app.rateLimit() : undefined,
      caller: config.REBATE_LOOKUP_RATE_LIMIT_MAX > 0 ? app.rateLimit(strictRateLimit(config)) : undefined,
    };
    const ttlMs = config.IDEMPOTENCY_KEY_TTL_SECONDS * 1000;
    /** `work`'s answer; a refusal of its Idempotency-Key is counted under its kind. */
    const counted = async <T>(facts: OperationFacts, work: () => T | Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (err) {
        if (err instanceof KeyRefusal) app.metrics.idempotency(facts.operationId, err.outcome);
        throw err;
      }
    };

    async function run(facts: OperationFacts, input: OperationInput, call: Call): Promise<Outcome> {
      const { fields, validators } = prepared.get(facts.operationId) ?? prepare(facts);
      // A tools/call counts once, as the operation it runs; HTTP counted the address first thing.
      const limit = limitOf(facts, config.REBATE_LOOKUP_RATE_LIMIT_MAX);
      if (limit === 'address' && !call.addressCounted) await limits.address?.call(app, call.request, call.reply);
      // Names in any case, values of the schemas' types, each field in the contract's place.
      const assembled = bindRequest(facts, fields, input);
      const companyId = authorize(facts, call.caller, input.query, input.body);
      // A write sent without a key, where none is required, runs none of the keys' code.
      const keyed = facts.keyed && (input.idempotencyKey !== undefined || config.IDEMPOTENCY_KEY_REQUIRED);
      const key = keyed ? await counted(facts, () => keyOf(input.idempotencyKey, config)) : undefined;
      checkBody(facts, input, assembled);
      const nul = [input.params, input.query, input.body].flatMap((values) => nulCharacterErrors(values));
      if (nul.length > 0) throw refused(nul);
      if (limit === 'caller') await limits.caller?.call(app, call.request, call.reply);
      for (const [part, name, validate] of validators) {
        // A body that was not sent is the body check's to refuse, not the schema's.
        if ((part === 'body' && input.body === undefined) || validate(input[part] ?? null)) continue;
        const errors = toFieldErrors(validate.errors ?? [], part === 'body' ? 'Body' : 'Request');
        throw errors.length > 0 ? refused(errors) : new ApiError(400, 'BadRequest', `The ${name} is invalid (${validate.errors?.length} errors).`);
      }

      const handler = handlers[facts.operationId] as Handler<OperationId>;
      const context = (store: Store, announce: (type: WebhookEventType) => void): OperationContext<OperationId> => ({
        params: input.params as never,
        query: input.query as never,
        body: input.body as never,
        caller: call.caller,
        companyId: companyId as never,
        store,
        config,
        log: call.request.log,
        generateSign: app.generateSign,
        announce,
      });
      // A write and its webhook event commit in one transaction, or neither does
      // (docs/decisions.md, "Events and deliveries"); with an Idempotency-Key, the key and the
      // answer too ("Retried writes").
      const write = async (tx: { db: Store['db'] }) => {
        let type = facts.events[0];
        const result = await handler(context({ ...app.store, db: tx.db }, (named) => (type = announced(facts, named))));
        if (facts.events.length === 0) return { result, recordedEvent: null };
        const eventContext = { requestId: call.request.id, traceparent: tracing?.traceparent() };
        return { result, recordedEvent: await recordEvent(tx, companyId!, type, result, new Date(), eventContext) };
      };
      let outcome: { result: unknown; recordedEvent: string | null; replayed?: boolean };
      if (key !== undefined) {
        const claim = { companyId: companyId!, key, operationId: facts.operationId, fingerprint: fingerprint(facts, input, companyId), ttlMs };
        const done = await counted(facts, () => runOnce(app.store, claim, call.request, write));
        if ('ran' in done) outcome = done.ran;
        else {
          app.metrics.idempotency(facts.operationId, 'replayed');
          outcome = { result: replayedResult(done.replayed), recordedEvent: null, replayed: true };
        }
      } else if (facts.events.length === 0) {
        outcome = { result: await handler(context(app.store, (type) => announced(facts, type))), recordedEvent: null };
      } else {
        outcome = await inTransaction(app.store, write);
      }
      return { ...outcome, columns: shapeAnswer(facts, facts.csvColumns, input.query, outcome.result) };
    }

    app.decorate('runOperation', run);

    // Expired Idempotency-Keys go in bounded batches, on every node (docs/decisions.md, "Retried writes").
    let sweeping: Promise<unknown> = Promise.resolve();
    const sweeper = setInterval(() => {
      sweeping = sweepExpiredKeys(app.store).catch((err: unknown) => app.log.warn({ err }, 'deleting expired Idempotency-Keys failed'));
    }, SWEEP.everyMs).unref();
    app.addHook('onClose', async () => {
      clearInterval(sweeper);
      await sweeping;
    });
  },
  { name: 'executor', dependencies: ['store', 'protection', 'metrics'] },
);

function announced(facts: OperationFacts, type: WebhookEventType): WebhookEventType {
  if (!facts.events.includes(type)) throw new Error(`${facts.operationId} does not declare the event ${type}`);
  return type;
}

const companyIn = (source: unknown): string | undefined => {
  const value = (source as Record<string, unknown> | undefined)?.CompanyId;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

const noCompany = () => unauthorized('The bearer token names no company for the caller.');

/**
 * Roles and the company the call acts on, once the fields are bound (wherever the caller sent
 * CompanyId) and before they are validated, so a caller refused here never learns whether
 * its request was valid. Answers that company (blank or omitted: the caller's), or undefined
 * where the operation acts on none.
 */
function authorize(facts: OperationFacts, caller: Caller | undefined, query: unknown, body: unknown): string | undefined {
  const refuse = () => (facts.declares403 ? forbidden() : unauthorized('The caller is not allowed to perform this operation.'));
  if (facts.authenticated && !caller) throw unauthorized();
  if (caller && facts.roles.length > 0 && !facts.roles.some((role) => caller.roles.has(role))) throw refuse();
  if (!facts.actsOnCompany) return undefined;
  const asked = [companyIn(query), companyIn(body)].filter((c) => c !== undefined);
  if (caller && !facts.anyCompany && !caller.roles.has(SUPERADMIN)) {
    // A token that names no company lacks what an operation on "the caller's company" needs.
    if (caller.companyId === undefined) throw noCompany();
    if (asked.some((company) => company.trim().toLowerCase() !== caller.companyId)) throw refuse();
  }
  const company = asked[0] ?? caller?.companyId;
  // Neither the request nor the token names one: 401 for a caller (a superadmin without a company), 400 anonymous.
  if (!company) throw caller ? noCompany() : refused(notEmpty('CompanyId'));
  return company.toLowerCase();
}

/** The body's presence and media type: one the operation takes, sent in a type it reads. */
function checkBody(facts: OperationFacts, input: OperationInput, assembled: boolean): void {
  if (!facts.body) return;
  if (input.body === undefined || input.body === null) throw new ApiError(400, 'NotEmpty', 'The request body is required.');
  // A body made from fields of the query string came in no media type.
  if (!assembled && !facts.bodyMediaTypes.includes(input.mediaType ?? '')) {
    throw new ApiError(415, 'UnsupportedMediaType', `Send the request body as ${facts.bodyMediaTypes.join(' or ')}.`);
  }
}
