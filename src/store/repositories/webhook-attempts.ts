import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../statements.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database } from '../schema.js';
import type { DeliveryRow, DeliveryStatus } from './webhook-messages.js';

// The attempts the delivery workers record (webhook-queue.ts recordAll), a batch in a fixed
// number of statements whatever its length (docs/decisions.md, "Events and deliveries").

/** How an attempt went, and what becomes of its delivery. */
export interface AttemptOutcome {
  attemptedAt: string;
  url: string;
  statusCode: number | null;
  durationMs: number;
  succeeded: boolean;
  response: string | null;
  error: string | null;
  /** when the next attempt is due; null when the delivery ends with this attempt */
  nextAttemptAt: string | null;
  /** the endpoint answered 410 Gone: disable it and fail its pending deliveries */
  gone: boolean;
}

/** An attempt as the worker hands it over to be recorded: its delivery, and how it went. */
export interface RecordedAttempt {
  delivery: DeliveryRow;
  outcome: AttemptOutcome;
}

const ATTEMPT_COLUMNS = ['delivery_id', 'attempted_at', 'url', 'status_code', 'duration_ms', 'succeeded', 'response', 'error', 'next_attempt_at'] as const;

/** One item of a batch's JSON list: the attempt's row (ATTEMPT_COLUMNS), then its delivery's next status. */
const recordedRow = ({ delivery, outcome: o }: RecordedAttempt) => [
  delivery.id, o.attemptedAt, o.url, o.statusCode, o.durationMs, o.succeeded ? 1 : 0, o.response, o.error, o.nextAttemptAt,
  (o.succeeded ? 'succeeded' : o.nextAttemptAt ? 'pending' : 'failed') satisfies DeliveryStatus,
];

/** A batch of attempts (a JSON list of recordedRow items), recorded while `owner` holds their deliveries. */
type RecordValues = { rows: string; owner: string };

/**
 * The batch as a table `recorded`, whatever its length, so that one prepared statement serves
 * every batch: SQLite lists the items with json_each, PostgreSQL with json_array_elements,
 * and `->>` takes the fields of each item on both.
 */
const withRecorded = (db: Kysely<Database>, p: Placeholders<RecordValues>) =>
  db.with('recorded', (creator) => {
    const field = <T>(i: number, type?: 'integer') => (type ? sql<T>`cast(item.value ->> ${sql.lit(i)} as integer)` : sql<T>`item.value ->> ${sql.lit(i)}`);
    const items = isPostgres(db) ? sql`json_array_elements(cast(${p.rows} as json))` : sql`json_each(${p.rows})`;
    return creator
      .selectFrom(items.as('item'))
      .select([
        field<number>(0, 'integer').as('delivery_id'), field<string>(1).as('attempted_at'), field<string>(2).as('url'),
        field<number | null>(3, 'integer').as('status_code'), field<number>(4, 'integer').as('duration_ms'),
        field<0 | 1>(5, 'integer').as('succeeded'), field<string | null>(6).as('response'), field<string | null>(7).as('error'),
        field<string | null>(8).as('next_attempt_at'), field<DeliveryStatus>(9).as('status'),
      ]);
  });
type WithRecorded = ReturnType<typeof withRecorded>;

/** The batch's deliveries move on, those that `owner` still holds: an UPDATE … FROM the batch. */
const moveRecorded = (creator: WithRecorded, p: Placeholders<RecordValues>) =>
  creator
    .updateTable('webhook_deliveries')
    .from('recorded')
    .set((eb) => ({
      status: eb.ref('recorded.status'), attempts: sql<number>`attempts + 1`, next_attempt_at: eb.ref('recorded.next_attempt_at'),
      lease_owner: null, lease_expires_at: null,
    }))
    .whereRef('webhook_deliveries.id', '=', 'recorded.delivery_id')
    .where('webhook_deliveries.lease_owner', '=', p.owner);

const insertRecorded = (creator: WithRecorded) =>
  creator.insertInto('webhook_attempts').columns(ATTEMPT_COLUMNS).expression((eb) => eb.selectFrom('recorded').select(ATTEMPT_COLUMNS));

/** PostgreSQL: the attempts' INSERT a data-modifying CTE of the deliveries' UPDATE, one statement. */
const recordInOne = prepared((db, p: Placeholders<RecordValues>) => {
  const recorded = withRecorded(db, p);
  // The CTE's creator has every table the UPDATE names, `recorded` among them.
  return moveRecorded(recorded.with('attempts', (creator) => insertRecorded(creator as unknown as WithRecorded)) as unknown as WithRecorded, p);
});
/** SQLite, which has no data-modifying CTEs: the INSERT and the UPDATE, in one transaction. */
const insertAlone = prepared((db, p: Placeholders<RecordValues>) => insertRecorded(withRecorded(db, p)));
const moveAlone = prepared((db, p: Placeholders<RecordValues>) => moveRecorded(withRecorded(db, p), p));

/**
 * Writes a batch of attempts of distinct deliveries, and moves on the deliveries that `owner`
 * still holds: on PostgreSQL one statement; on SQLite two, which the caller runs in one
 * transaction.
 */
export async function writeAttempts(db: Kysely<Database>, owner: string, attempts: readonly RecordedAttempt[]): Promise<void> {
  const values: RecordValues = { rows: JSON.stringify(attempts.map(recordedRow)), owner };
  if (isPostgres(db)) {
    await recordInOne.run(db, values);
    return;
  }
  await insertAlone.run(db, values);
  await moveAlone.run(db, values);
}
