import type { ValidateFunction } from 'ajv';
import type { Config } from '../config.js';
import { createServerAjv } from '../contract/ajv.js';
import { ApiError, forbidden, toApiError, unauthorized, Unexpected } from '../contract/errors.js';
import type { OperationFacts } from '../contract/operations.js';
import { toFieldErrors } from '../contract/validation-errors.js';
import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { notEmpty, refused } from '../domain/refusals.js';
import { handlers } from '../handlers/index.js';
import type { Handler, Log, OperationContext, OperationId } from '../handlers/types.js';
import type { MetricsRecorder, RateLimit } from '../metrics/metrics.js';
import type { Store } from '../store/db.js';
import { recordEvent, type WebhookEventType } from '../store/repositories/webhook-messages.js';
import { inTransaction, nulCharacterErrors } from '../store/statements.js';
import { tracing } from '../tracing/tracing.js';
import { fingerprint, keyOf, KeyRefusal, replayedResult, runOnce } from './idempotency.js';
import { shapeAnswer } from './shape.js';

/**
 * A call of an operation as its transport bound it: each field in the contract's place under
 * its contract name, values of the schemas' types where the transport's leniency could make
 * them so. Nothing of it is validated yet.
 */
export interface OperationInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** undefined where none was sent */
  body: unknown;
  /** the Idempotency-Key as sent (a write's header, a write tool's argument); undefined where none was */
  idempotencyKey?: unknown;
  /** the transport's refusal of how the body came (its media type), raised once access is decided */
  bodyRefusal?: ApiError;
}

/** Who calls, and what the transport lends the call: its id, its log, its rate limits, the moment it answers. */
export interface Call {
  caller?: Caller;
  requestId: string;
  log: Log;
  /** where the call came from, as a fault's log line names it (HTTP: the method and URL) */
  origin(): Record<string, unknown>;
  /** when the transport took the call (performance.now()), the start of its duration */
  startedAt: number;
  /**
   * Counts the call against a rate limit, rejecting with its refusal (the transport's counter:
   * it may set headers too); undefined where nothing is to count (a limit that is off, or one
   * the transport counted already), so that the common call awaits nothing.
   */
  countAgainst(limit: RateLimit): Promise<void> | undefined;
  /** runs `then` once the transport has sent the answer */
  afterAnswer(then: () => void): void;
}

/** What a call answered: the result (shaped by `Fields` and `Meta`) and the columns CSV writes of it. */
export interface Outcome {
  result: unknown;
  columns?: string[];
  /** the stored answer of an earlier request with the same Idempotency-Key */
  replayed?: boolean;
}

/** What the executor runs operations with, given once by the app. */
export interface ExecutorDeps {
  store: Store;
  config: Config;
  /** absent where the node counts nothing (METRICS_TOKEN unset) */
  metrics?: MetricsRecorder;
  /** draws a new rebate code sign */
  generateSign: () => string;
  /** hands a committed event to this node's delivery worker; absent where deliveries are off */
  nudge?: (messageId: string) => void;
}

export type Execute = (operation: OperationFacts, input: OperationInput, call: Call) => Promise<Outcome>;

/** The limit a call counts against: the caller's tighter one where the operation has it and it is on, else its address's. */
export const limitOf = (facts: OperationFacts, lookupLimit: number): RateLimit =>
  facts.rateLimit === 'strict' && lookupLimit > 0 ? 'caller' : 'address';

/**
 * Each operation's compiled schemas, made on its first call and kept for the process: every
 * app of the process serves the same contract (a test process builds hundreds).
 */
let ajv: ReturnType<typeof createServerAjv> | undefined;
type Validators = Array<['params' | 'body' | 'query', string, ValidateFunction]>;
const compiled = new Map<string, Validators>();
function validatorsOf(facts: OperationFacts): Validators {
  let validators = compiled.get(facts.operationId);
  if (validators) return validators;
  ajv ??= createServerAjv();
  const compile = ajv.compile.bind(ajv);
  // Judged in HTTP's order (the path, the body, the query string): the first refused part is the refusal.
  const parts = [['params', 'params', facts.params], ['body', 'body', facts.body], ['query', 'querystring', facts.query]] as const;
  validators = parts.flatMap(([part, name, schema]) => (schema ? [[part, name, compile(schema)] as Validators[number]] : []));
  compiled.set(facts.operationId, validators);
  return validators;
}

function validate(facts: OperationFacts, input: OperationInput): void {
  for (const [part, name, check] of validatorsOf(facts)) {
    // A body that was not sent is the body check's to refuse, not the schema's.
    if ((part === 'body' && input.body === undefined) || check(input[part] ?? null)) continue;
    const errors = toFieldErrors(check.errors ?? [], part === 'body' ? 'Body' : 'Request');
    throw errors.length > 0 ? refused(errors) : new ApiError(400, 'BadRequest', `The ${name} is invalid (${check.errors?.length} errors).`);
  }
}

/**
 * The one way to run an operation, whichever transport took it (docs/decisions.md, "One way
 * to run an operation"): the contract's facts of the operation decide the steps, in the order
 * the product decisions give. It counts, logs and maps what it refuses, once for every
 * transport: a call ends in an Outcome or in a thrown ApiError the transport writes.
 */
export function createExecutor(deps: ExecutorDeps): Execute {
  const { store, config, metrics } = deps;

  /** `work`'s answer; a refusal of its Idempotency-Key is counted under its kind. */
  const counted = async <T>(facts: OperationFacts, work: () => T | Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof KeyRefusal) metrics?.idempotency(facts.operationId, err.outcome);
      throw err;
    }
  };

  async function run(facts: OperationFacts, input: OperationInput, call: Call): Promise<Outcome> {
    const limit = limitOf(facts, config.REBATE_LOOKUP_RATE_LIMIT_MAX);
    // A count is awaited only where there is one: HTTP counted the address's first thing.
    const byAddress = limit === 'address' ? call.countAgainst(limit) : undefined;
    if (byAddress) await byAddress;
    const companyId = authorize(facts, call.caller, input.query, input.body);
    // A write sent without a key, where none is required, runs none of the keys' code.
    const keyed = facts.keyed && (input.idempotencyKey !== undefined || config.IDEMPOTENCY_KEY_REQUIRED);
    const key = keyed ? await counted(facts, () => keyOf(input.idempotencyKey, config)) : undefined;
    if (facts.body && (input.body === undefined || input.body === null)) throw new ApiError(400, 'NotEmpty', 'The request body is required.');
    if (input.bodyRefusal) throw input.bodyRefusal;
    const nul = [input.params, input.query, input.body].flatMap((values) => nulCharacterErrors(values));
    if (nul.length > 0) throw refused(nul);
    const byCaller = limit === 'caller' ? call.countAgainst(limit) : undefined;
    if (byCaller) await byCaller;
    validate(facts, input);

    const handler = handlers[facts.operationId] as Handler<OperationId>;
    let event = facts.events[0];
    const context = (db: Store['db']): OperationContext<OperationId> => ({
      params: input.params as never,
      query: input.query as never,
      body: input.body as never,
      caller: call.caller,
      companyId: companyId as never,
      store: db === store.db ? store : { ...store, db },
      config,
      log: call.log,
      generateSign: deps.generateSign,
      announce: (type) => (event = announced(facts, type)),
    });
    // A write runs in one transaction, opened here and handed down: its checks, its changes
    // and its webhook event commit together, or nothing does (docs/decisions.md, "Events and
    // deliveries"); with an Idempotency-Key, the key and the answer too ("Retried writes").
    const write = async (tx: { db: Store['db'] }) => {
      const result = await handler(context(tx.db));
      if (facts.events.length === 0) return { result, recorded: null };
      const eventContext = { requestId: call.requestId, traceparent: tracing?.traceparent() };
      return { result, recorded: await recordEvent(tx, companyId!, event, result, new Date(), eventContext) };
    };
    let outcome: { result: unknown; recorded: string | null; replayed?: boolean };
    if (key !== undefined) {
      const claim = { companyId: companyId!, key, operationId: facts.operationId, fingerprint: fingerprint(facts, input, companyId), ttlMs: config.IDEMPOTENCY_KEY_TTL_SECONDS * 1000 };
      const done = await counted(facts, () => runOnce(store, claim, write));
      if ('ran' in done) outcome = done.ran;
      else {
        metrics?.idempotency(facts.operationId, 'replayed');
        outcome = { result: replayedResult(done.replayed), recorded: null, replayed: true };
      }
    } else if (facts.method === 'GET') {
      outcome = { result: await handler(context(store.db)), recorded: null };
    } else {
      outcome = await inTransaction(store, write);
    }
    // Committed: the event is delivered once the answer is sent, never before, so a receiver
    // never hears of a write its caller has not.
    const { recorded } = outcome;
    if (recorded && deps.nudge) call.afterAnswer(() => deps.nudge!(recorded));
    // `Fields` and `Meta` shape the answer where they were sent (and the operation declares them).
    const shaped = input.query.Fields !== undefined || input.query.Meta !== undefined;
    const columns = shaped ? shapeAnswer(facts, facts.csvColumns, input.query, outcome.result) : facts.csvColumns;
    return { result: outcome.result, columns, replayed: outcome.replayed };
  }

  return async function execute(facts, input, call) {
    const { operationId } = facts;
    let status = 200;
    try {
      return await run(facts, input, call);
    } catch (err) {
      const error = toApiError(err);
      const limit = (err as { rateLimit?: RateLimit } | null)?.rateLimit;
      if (limit) metrics?.rateLimited(operationId, limit);
      if (!error) call.log.error({ err, ...call.origin(), operation: operationId }, 'unexpected error');
      else if (error.statusCode >= 500) call.log.error({ err, ...call.origin(), operation: operationId }, 'request failed');
      const answer = error ?? new Unexpected(err);
      status = answer.statusCode;
      throw answer;
    } finally {
      metrics?.request(operationId, status, (performance.now() - call.startedAt) / 1000);
    }
  };
}

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
export function authorize(facts: OperationFacts, caller: Caller | undefined, query: unknown, body: unknown): string | undefined {
  const refuse = () => (facts.declares403 ? forbidden() : unauthorized('The caller is not allowed to perform this operation.'));
  if (facts.authenticated && !caller) throw unauthorized();
  if (caller && facts.roles.length > 0 && !facts.roles.some((role) => caller.roles.has(role))) throw refuse();
  // An OAuth token's scopes narrow its roles (checked inline: this runs on every call).
  if (caller?.scopes && !caller.scopes.has(facts.scope)) throw refuse();
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

