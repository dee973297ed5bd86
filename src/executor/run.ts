import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Caller } from '../domain/caller.js';
import { nulCharacterErrors } from '../domain/nul.js';
import { refuseAny } from '../domain/refusals.js';
import { coerceToSchema, isRecord } from '../http/coercion.js';
import { ApiError } from '../http/errors.js';
import { bindRequest, requestFields, requestMeta, selectedFields, type RequestFields, type RequestParts } from '../http/servicestack-binding.js';
import { handlers } from '../operations/index.js';
import type { Handler, OperationContext, OperationId } from '../operations/types.js';
import { strictRateLimit } from '../plugins/protection.js';
import type { Store } from '../store/db.js';
import { inTransaction } from '../store/transactions.js';
import { tracing } from '../tracing.js';
import { recordEvent, type WebhookEventType } from '../webhooks/outbox.js';
import { authorize } from './access.js';
import { operations, type OperationFacts } from './operations.js';
import { createValidation } from './validation.js';

/** A call of an operation as its transport read it: the fields where they were sent, and the body's media type. */
export interface OperationInput extends RequestParts {
  /** the media type the body came in; undefined where none was sent */
  mediaType?: string;
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
  facts: OperationFacts;
  result: unknown;
  columns?: string[];
  recordedEvent: string | null;
}

export type RunOperation = (operationId: string, input: OperationInput, call: Call) => Promise<Outcome>;

declare module 'fastify' {
  interface FastifyInstance {
    /** runs an operation for any transport (docs/decisions.md, "One way to run an operation") */
    runOperation: RunOperation;
  }
}

/** The limit a call counts against: the caller's tighter one where the operation has it and it is on, else its address's. */
export const limitOf = (facts: OperationFacts, lookupLimit: number): 'caller' | 'address' =>
  facts.rateLimit === 'strict' && lookupLimit > 0 ? 'caller' : 'address';

/**
 * The one way to run an operation, for HTTP and MCP alike: the contract's facts of the
 * operation decide the steps, in the order the product decisions give (docs/decisions.md,
 * "One way to run an operation"). Refusals are thrown (ApiError, Refusal); each transport
 * writes them in its own way.
 */
export const executorPlugin = fp(
  async (app: FastifyInstance) => {
    const validate = createValidation();
    const fields = new Map<string, RequestFields>();
    const fieldsOf = (facts: OperationFacts) => fields.get(facts.operationId) ?? fields.set(facts.operationId, requestFields(facts)).get(facts.operationId)!;
    const limits = {
      // The address's: the plugin's global limit, whose counts HTTP requests share.
      address: app.config.RATE_LIMIT_MAX > 0 ? app.rateLimit() : undefined,
      caller: app.config.REBATE_LOOKUP_RATE_LIMIT_MAX > 0 ? app.rateLimit(strictRateLimit(app.config)) : undefined,
    };
    const limitOfCall = (facts: OperationFacts) => limitOf(facts, app.config.REBATE_LOOKUP_RATE_LIMIT_MAX);

    async function run(operationId: string, input: OperationInput, call: Call): Promise<Outcome> {
      const facts = operations().get(operationId);
      if (!facts) throw new Error(`No operation ${operationId}`);
      const handler = handlers[operationId as OperationId] as Handler<OperationId>;
      // A tools/call counts once, as the operation it runs; HTTP counted the address first thing.
      const limit = limitOfCall(facts);
      if (limit === 'address' && !call.addressCounted) await limits.address?.call(app, call.request, call.reply);
      // Names in any case, values of the schemas' types, each field in the contract's place.
      const assembled = bindRequest(facts, fieldsOf(facts), input);
      shapeBody(facts, input);
      const companyId = authorize(facts, call.caller, input.query, input.body);
      checkBody(facts, input, assembled);
      refuseAny([input.params, input.query, input.body].flatMap((values) => nulCharacterErrors(values)));
      if (limit === 'caller') await limits.caller?.call(app, call.request, call.reply);
      validate(facts, input);

      const context = (store: Store, announce: (type: WebhookEventType) => void): OperationContext<OperationId> => ({
        params: input.params as never,
        query: input.query as never,
        body: input.body as never,
        caller: call.caller,
        companyId: companyId as never,
        store,
        config: app.config,
        log: call.request.log,
        generateSign: app.generateSign,
        announce,
      });
      let outcome: { result: unknown; recordedEvent: string | null };
      if (facts.events.length === 0) {
        const result = await handler(context(app.store, (type) => refuseEvent(facts, type)));
        outcome = { result, recordedEvent: null };
      } else {
        // A write and its webhook event commit in one transaction, or neither does
        // (docs/decisions.md, "Events and deliveries").
        outcome = await inTransaction(app.store, async (tx) => {
          let type = facts.events[0];
          const result = await handler(context({ ...app.store, db: tx.db }, (named) => (type = announced(facts, named))));
          const eventContext = { requestId: call.request.id, traceparent: tracing?.traceparent() };
          return { result, recordedEvent: await recordEvent(tx, companyId!, type, result, new Date(), eventContext) };
        });
      }
      return { facts, ...shapeAnswer(facts, input.query, outcome.result), recordedEvent: outcome.recordedEvent };
    }

    app.decorate('runOperation', run);
  },
  { name: 'executor', dependencies: ['store', 'protection'] },
);

const refuseEvent = (facts: OperationFacts, type: string): never => {
  throw new Error(`${facts.operationId} declares no webhook events, yet announced ${type}`);
};

function announced(facts: OperationFacts, type: WebhookEventType): WebhookEventType {
  if (!facts.events.includes(type)) throw new Error(`${facts.operationId} does not declare the event ${type}`);
  return type;
}

/**
 * Field names match case-insensitively and CSV cells take the schema's types; a blank
 * CompanyId means "the caller's company". Refuses nothing: the access step reads the result.
 */
function shapeBody(facts: OperationFacts, input: OperationInput): void {
  if (!facts.body || !isRecord(input.body)) return;
  const body = coerceToSchema(input.body, facts.body) as Record<string, unknown>;
  if (typeof body.CompanyId === 'string' && body.CompanyId.trim() === '') delete body.CompanyId;
  input.body = body;
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

/**
 * Where the operation declares them, `Fields` fills only the fields it names, in JSON and
 * CSV alike, and `Meta` is echoed; elsewhere they are unknown names, ignored
 * (docs/decisions.md, "Wire format").
 */
function shapeAnswer(facts: OperationFacts, query: Record<string, unknown>, result: unknown): { result: unknown; columns?: string[] } {
  const declared = facts.query?.properties ?? {};
  let selected: string[] | undefined;
  if (typeof query.Fields === 'string' && facts.csvColumns && declared.Fields) selected = selectedFields(query.Fields, facts.csvColumns);
  if (query.Meta !== undefined && declared.Meta) {
    const meta = requestMeta(query.Meta as Record<string, string> | string);
    if (meta) (result as { Meta?: Record<string, string> }).Meta = meta;
  }
  const envelope = result as { Results?: unknown };
  if (selected && Array.isArray(envelope.Results)) {
    envelope.Results = envelope.Results.map((item: Record<string, unknown>) => {
      const kept: Record<string, unknown> = {};
      for (const name of selected) if (Object.hasOwn(item, name)) kept[name] = item[name];
      return kept;
    });
  }
  return { result, columns: selected ?? facts.csvColumns };
}
