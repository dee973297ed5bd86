import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import { ApiError, toApiError, type ResponseStatus } from '../contract/errors.js';
import type { KeyOutcome } from '../metrics/metrics.js';
import type { Store } from '../store/db.js';
import { claimKey, deleteExpiredKeys, keptKey, storeAnswer, type KeyClaim, type StoredAnswer } from '../store/repositories/idempotency-keys.js';
import { inTransaction, isRetryable, withRetries } from '../store/statements.js';
import type { OperationFacts } from '../contract/operations.js';

/**
 * Retried writes (docs/decisions.md, "Retried writes"): a write sent with an Idempotency-Key
 * runs once for its company and key, on any node. The first statement of its transaction
 * claims the key and its answer is stored in the same transaction; a request with the key of
 * a stored answer gets that answer again, and nothing runs.
 */

/** The header's name, as the contract's parameter and its MCP argument (IdempotencyKey) name it. */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';
/** The answer header of a replay. */
export const REPLAYED_HEADER = 'idempotent-replayed';

const MAX_KEY = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** A refusal of the key itself, counted in the metrics under its kind. */
export class KeyRefusal extends ApiError {
  constructor(
    readonly outcome: KeyOutcome,
    statusCode: number,
    errorCode: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(statusCode, errorCode, message, [], headers);
  }
}

/**
 * The key a write was sent with, or undefined without one: 1 to 255 visible ASCII characters,
 * or a Structured Field string of them (`"abc"` is the key `abc`). Anything else, and no key
 * where keys are required, is refused before the request's body is validated.
 */
export function keyOf(sent: unknown, config: Config): string | undefined {
  if (sent === undefined) {
    if (!config.IDEMPOTENCY_KEY_REQUIRED) return undefined;
    throw new KeyRefusal('required', 400, 'IdempotencyKeyRequired', `Send an ${IDEMPOTENCY_KEY} with every write.`);
  }
  let key = typeof sent === 'string' ? sent : '';
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0 || key.length > MAX_KEY || !VISIBLE_ASCII.test(key)) {
    throw new KeyRefusal(
      'invalid',
      400,
      'InvalidIdempotencyKey',
      `The ${IDEMPOTENCY_KEY} must be 1 to ${MAX_KEY} visible ASCII characters, bare or as a quoted string.`,
    );
  }
  return key;
}

/** `value` as canonical JSON: object keys sorted, a null or absent property left out. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonical(item))).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof Date) return JSON.stringify(value);
  const entries = Object.keys(value)
    .filter((name) => (value as Record<string, unknown>)[name] !== null && (value as Record<string, unknown>)[name] !== undefined)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonical((value as Record<string, unknown>)[name])}`);
  return `{${entries.join(',')}}`;
}

/**
 * What makes two requests the same request: the operation and its validated input by
 * contract name (path over query over body), without `format`, with the company resolved.
 * JSON or CSV, field order and name case, the operation's path or a predefined route: all
 * bind to the same input, so they make the same fingerprint.
 */
export function fingerprint(facts: OperationFacts, input: BoundInput, companyId: string | undefined): string {
  const body = input.body !== null && typeof input.body === 'object' && !Array.isArray(input.body) ? input.body : { '': input.body };
  const fields: Record<string, unknown> = { ...body, ...input.query, ...input.params };
  delete fields.format;
  if (companyId !== undefined) fields.CompanyId = companyId;
  return createHash('sha256').update(`${facts.operationId}\n${canonical(fields)}`).digest('base64url');
}

/** The request's fields by place, as the executor validates them. */
interface BoundInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** What a keyed write answered: what it ran, or the stored answer of its first run. */
export type KeyedOutcome<T> = { ran: T } | { replayed: StoredAnswer };

/** A handler's refusal, rolled back with the write's changes, to be stored on its own. */
class RefusalToKeep extends Error {
  constructor(
    readonly refusal: unknown,
    readonly answer: StoredAnswer,
  ) {
    super('refused');
  }
}

const inUse = () =>
  new KeyRefusal('in_use', 409, 'IdempotencyKeyInUse', `A request with this ${IDEMPOTENCY_KEY} is still running; send it again shortly.`, {
    'retry-after': '1',
  });

/** PostgreSQL's lock_timeout ran out (55P03): the claim waited for the key's first request too long. */
const isLockTimeout = (err: unknown) => (err as { code?: unknown } | null)?.code === '55P03';

/**
 * Runs `write` once for the key of `claim`: its transaction's first statement claims the key,
 * and the answer is stored in it (`result` as JSON, status 200). A handler's refusal below
 * 500 is stored without the write's changes: the transaction is rolled back, and the key is
 * claimed with the refusal by a statement of its own (if another request claimed it meanwhile,
 * that one's answer is the key's). A failure of the database, and any other error, stores
 * nothing, so the key may be sent again.
 */
export async function runOnce<T extends { result: unknown }>(
  store: Store,
  claim: KeyClaim,
  write: (tx: { db: Store['db'] }) => Promise<T>,
): Promise<KeyedOutcome<T>> {
  try {
    return await inTransaction(store, async (tx): Promise<KeyedOutcome<T>> => {
      if (!(await claimKey(tx.db, claim))) return replay(claim, await keptKey(tx.db, claim));
      let done: T;
      try {
        done = await write(tx);
      } catch (err) {
        const refusal = toApiError(err);
        if (!refusal || refusal.statusCode >= 500) throw err;
        throw new RefusalToKeep(err, { status: refusal.statusCode, answer: JSON.stringify(refusal.toResponseStatus()) });
      }
      await storeAnswer(tx.db, claim, { status: 200, answer: JSON.stringify(done.result) });
      return { ran: done };
    });
  } catch (err) {
    if (err instanceof RefusalToKeep) {
      if (await withRetries(() => claimKey(store.db, claim, err.answer))) throw err.refusal;
      return replay(claim, await keptKey(store.db, claim));
    }
    // The key's first request held it past the wait, or the database gave up on the
    // transaction more often than it is run again: the client may send it again.
    if (isLockTimeout(err) || isRetryable(err)) throw inUse();
    throw err;
  }
}

/** The answer a claimed key holds for a request that finds it: its own request's, or a refusal. */
function replay<T>(claim: KeyClaim, kept: Awaited<ReturnType<typeof keptKey>>): KeyedOutcome<T> {
  if (!kept?.answer) throw inUse();
  if (kept.fingerprint !== claim.fingerprint || kept.operationId !== claim.operationId) {
    throw new KeyRefusal(
      'reused',
      422,
      'IdempotencyKeyReused',
      `This ${IDEMPOTENCY_KEY} was used for another request; use a new key for a new request.`,
    );
  }
  return { replayed: kept.answer };
}

/** A stored refusal, answered again as it was, with the replay's header. */
export class ReplayedRefusal extends ApiError {
  constructor(
    statusCode: number,
    private readonly stored: ResponseStatus,
  ) {
    super(statusCode, stored.ErrorCode, stored.Message, stored.Errors, { [REPLAYED_HEADER]: 'true' });
  }

  override toResponseStatus(): ResponseStatus {
    return this.stored;
  }
}

/** The stored answer as the call's result, or its stored refusal thrown. */
export function replayedResult(answer: StoredAnswer): unknown {
  const value = JSON.parse(answer.answer) as unknown;
  if (answer.status >= 400) throw new ReplayedRefusal(answer.status, value as ResponseStatus);
  return value;
}

/** How often a node deletes expired keys, how many a statement deletes, and how many statements a sweep runs at most. */
export const SWEEP = { everyMs: 60_000, batch: 500, batches: 20 };

/**
 * Deletes expired keys in bounded batches, until a batch finds fewer than it may delete or the
 * sweep has run its batches (the next sweep goes on); answers how many went. Every node sweeps:
 * a batch checks expiry again as it deletes, so two nodes at once delete each key once.
 */
export async function sweepExpiredKeys(store: Store, sweep = SWEEP): Promise<number> {
  let deleted = 0;
  for (let run = 0; run < sweep.batches; run++) {
    const went = await deleteExpiredKeys(store.db, sweep.batch);
    deleted += went;
    if (went < sweep.batch) break;
  }
  return deleted;
}
