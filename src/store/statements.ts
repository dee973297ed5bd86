import { AsyncLocalStorage } from 'node:async_hooks';
import { PostgresAdapter, sql, type Kysely, type KyselyPlugin, type LogEvent, type RawBuilder } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from './schema.js';
import { invalid, type FieldError } from '../domain/refusals.js';

/**
 * Counts what one piece of work (a request, in the tests and the bench) asks of the store:
 * the SQL statements it runs (each a round trip to the database, cheap in-process on SQLite
 * and costly over a network on PostgreSQL), and the queries it builds and compiles (each a
 * cost of this process, which a prepared query pays once: store/prepared.ts). Both engines'
 * Kysely instances report into it; outside `countStatements` nothing is counted.
 */
/** A statement as it was sent: its SQL and its values. */
export interface SentStatement {
  sql: string;
  parameters: readonly unknown[];
  /** the `id` of the first row it answered, if any (a new row's, for an INSERT … RETURNING) */
  id?: unknown;
}

interface Counter {
  statements: number;
  compiles: number;
  /** the statements themselves, when asked for (the bench replays them) */
  sent?: SentStatement[];
}

const current = new AsyncLocalStorage<Counter>();

/** Kysely's `log` option: every statement, run or failed, is one round trip. */
export function logStatement(event: LogEvent): void {
  const counter = current.getStore();
  if (!counter) return;
  counter.statements++;
  counter.sent?.push({ sql: event.query.sql, parameters: event.query.parameters });
}

/** A Kysely plugin that sees every query compiled (Kysely passes each through its plugins then). */
export const compileCounter: KyselyPlugin = {
  transformQuery({ node }) {
    const counter = current.getStore();
    if (counter) counter.compiles++;
    return node;
  },
  transformResult: async ({ result }) => {
    // Kysely logs a statement when the driver answers, then passes its result through the
    // plugins: the last statement kept is this result's.
    const sent = current.getStore()?.sent?.at(-1);
    const first = result.rows[0] as { id?: unknown } | undefined;
    if (sent && first && 'id' in first) sent.id = first.id;
    return result;
  },
};

/**
 * Runs `work` and answers its result with the statements it ran and the queries it
 * compiled; with `keep`, also the statements themselves (transaction control aside).
 */
export async function countStatements<T>(
  work: () => Promise<T>,
  options: { keep?: boolean } = {},
): Promise<{ result: T; statements: number; compiles: number; sent: SentStatement[] }> {
  const counter: Counter = { statements: 0, compiles: 0, ...(options.keep ? { sent: [] } : {}) };
  const result = await current.run(counter, work);
  return { result, statements: counter.statements, compiles: counter.compiles, sent: counter.sent ?? [] };
}

/**
 * Which engine a connection speaks to: PostgreSQL, or else SQLite, the two the store is
 * written for. Repositories and migrations ask here, where the engines' differences live
 * (sqlite.ts and postgres.ts say why each one differs).
 */
/** Milliseconds since the epoch, by the database's clock: the same for every node. */
export const nowMs = (db: Kysely<any>): RawBuilder<number> =>
  isPostgres(db) ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint` : sql<number>`cast(unixepoch('subsec') * 1000 as integer)`;

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * How often a transaction is run when the database gives up on it, and how long to wait
 * between runs: a random wait below `baseMs · 2^(run − 1)`, at most `capMs` ("full
 * jitter": transactions that collided once spread out instead of colliding again).
 * Twenty runs wait about 2 s in all on average, 4.2 s at most. A hot row is the worst case:
 * under REPEATABLE READ or SERIALIZABLE, each commit on it fails every transaction waiting
 * for it. 200 concurrent decreases of one code on a pool of 10 connections took up to 9
 * runs; twenty leave room for a busier machine.
 */
export const RETRY_POLICY = { runs: 20, baseMs: 5, capMs: 300 };

/**
 * Failures that say "run it again", not "this is wrong": PostgreSQL's serialization failure
 * (40001, under REPEATABLE READ or SERIALIZABLE, including at COMMIT) and deadlock (40P01);
 * SQLite's SQLITE_BUSY family (another process held the file's write lock beyond
 * busy_timeout, or a transaction's read snapshot went stale before it wrote:
 * SQLITE_BUSY_SNAPSHOT, which no timeout waits out). The database rolled the transaction
 * back, so nothing of the failed run remains.
 */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'));
}

/**
 * Runs `run` (a whole transaction, or one statement that is its own) again after a
 * retryable failure, as RETRY_POLICY says; the last failure is passed on.
 */
export async function withRetries<T>(run: () => Promise<T>, policy = RETRY_POLICY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= policy.runs || !isRetryable(err)) throw err;
      await sleep(Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1)));
    }
  }
}

/**
 * Runs `run`, one statement that is a transaction by itself, with retries (withRetries)
 * when `db` is the store. On a transaction it runs once: a failed statement has aborted
 * that transaction, so only the outermost transaction can be run again, and it is.
 */
export function statementWithRetries<T>(db: Kysely<Database>, run: () => Promise<T>): Promise<T> {
  return db.isTransaction ? run() : withRetries(run);
}

/**
 * Runs `work` in one database transaction, all or nothing (a throw rolls everything back),
 * and runs it again (a new transaction, from the start) after a retryable failure. `work`
 * must therefore do nothing outside the database that it cannot repeat, and must read what
 * it decides on inside the transaction; it passes `tx` to the repositories, so that the
 * checks and writes of one operation commit together. A transaction has one owner, who opens
 * it here and hands it down (a write's is the executor's): one opened inside another is a
 * mistake, refused rather than joined, since only the outermost could be run again.
 */
export function inTransaction<T>({ db }: { db: Kysely<Database> }, work: (tx: { db: Kysely<Database> }) => Promise<T>): Promise<T> {
  if (db.isTransaction) throw new Error('A transaction was opened inside another: its owner hands it down instead.');
  return withRetries(() => db.transaction().execute((trx) => work({ db: trx })));
}

/**
 * No text the service is given may hold U+0000 (NUL): PostgreSQL cannot store it in a text
 * column (SQLSTATE 22021), and what one engine cannot store the other must not accept
 * either, so that every operation behaves the same on both. Checked once for every request
 * (executor/execute.ts) and once for every import item (import/validate.ts).
 */
const NUL = '\u0000';

/** A value met in the walk: where it sits (its parent's entry and its key there). */
interface Place {
  parent: number;
  key: string | number;
}

/** `Customer.Firstname`, `EventTypes[2]`: the path of entry `at`, built only for a text that is refused. */
function pathOf(places: Place[], at: number): string {
  const segments: string[] = [];
  for (let place = places[at]; place.parent >= 0; place = places[place.parent]) {
    segments.push(typeof place.key === 'number' ? `[${place.key}]` : place.key);
  }
  return segments.reverse().reduce((path, segment) => (path === '' || segment.startsWith('[') ? path + segment : `${path}.${segment}`), '');
}

/**
 * One InvalidCharacter error for each text in `value` (path, query, body or import item,
 * nested objects and lists included) that holds a NUL, in document order, named by its
 * path as FieldName. Walked with a stack of its own, not recursion: a body may nest
 * thousands of levels deep, and only the schema, checked later, refuses that.
 */
export function nulCharacterErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const places: Place[] = [{ parent: -1, key: '' }];
  const pending: Array<[value: unknown, at: number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes(NUL)) errors.push(invalid('InvalidCharacter', pathOf(places, at), (name) => `${name} must not contain the NUL character.`));
    } else if (item !== null && typeof item === 'object') {
      const entries: Array<[string | number, unknown]> = Array.isArray(item) ? item.map((v, i) => [i, v]) : Object.entries(item);
      // Pushed last to first, so that they are met first to last.
      for (let i = entries.length - 1; i >= 0; i--) {
        places.push({ parent: at, key: entries[i][0] });
        pending.push([entries[i][1], places.length - 1]);
      }
    }
  }
  return errors;
}
