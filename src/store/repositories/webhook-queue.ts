import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { Store } from '../db.js';
import { isPostgres } from '../engines/engine.js';
import { jsonList } from '../json.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { Database, NewRow } from '../schema.js';
import { inTransaction, statementWithRetries } from '../transactions.js';
import type { DeliveryRow, DeliveryStatus } from './webhook-messages.js';
import { deliveryTarget, targetKey, webhooksRepository, type DeliveryTarget } from './webhooks.js';

/** A delivery a worker holds, with its endpoint as the endpoint is now. */
export interface ClaimedDelivery {
  delivery: DeliveryRow;
  /** undefined when the endpoint is gone */
  endpoint?: DeliveryTarget;
}

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

interface ClaimValues {
  owner: string;
  now: string;
  leaseExpiresAt: string;
  limit: number;
  /** JSON list of this node's answered writes' message ids (json.ts jsonList) */
  messageIds: string;
}

/**
 * The claim's UPDATE: up to `limit` due deliveries (and, `withMessages`, the first attempts of
 * the listed messages, whatever their time), soonest due first, that no lease holds. On
 * PostgreSQL its subquery skips rows another node is claiming (FOR UPDATE SKIP LOCKED) and
 * the lease is checked again on the row it locks; SQLite runs one write at a time.
 */
function claimUpdate(db: Kysely<Database>, creator: QueryCreator<Database>, p: Placeholders<ClaimValues>, withMessages: boolean) {
  const free = () =>
    db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where((eb) =>
        withMessages
          ? eb.or([eb('next_attempt_at', '<=', p.now), eb.and([sql<boolean>`message_id in (${jsonList(db, p.messageIds, 'text')})`, eb('attempts', '=', 0)])])
          : eb('next_attempt_at', '<=', p.now),
      )
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', p.now)]));
  const due = free().orderBy('next_attempt_at').orderBy('id').limit(p.limit);
  return creator
    .updateTable('webhook_deliveries')
    .set({ lease_owner: p.owner, lease_expires_at: p.leaseExpiresAt })
    .where('id', 'in', isPostgres(db) ? due.forUpdate().skipLocked() : due)
    .where('id', 'in', free());
}

/** PostgreSQL: the UPDATE as a data-modifying CTE that the endpoints are joined to, one round trip. */
const claimWithEndpoints = preparedVariants(
  (withMessages: boolean) => String(withMessages),
  (withMessages) =>
    prepared((db, p: Placeholders<ClaimValues>) =>
      db
        .with('claimed', (creator) => claimUpdate(db, creator, p, withMessages).returningAll())
        .selectFrom('claimed')
        .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'claimed.company_id').onRef('e.id', '=', 'claimed.endpoint_id'))
        .selectAll('claimed')
        .select(['e.url', 'e.secret', 'e.disabled']),
    ),
);

/** SQLite: the UPDATE, whose RETURNING sees only the updated table. */
const claimAlone = preparedVariants(
  (withMessages: boolean) => String(withMessages),
  (withMessages) => prepared((db, p: Placeholders<ClaimValues>) => claimUpdate(db, db, p, withMessages).returningAll()),
);

/** An attempt's row, and what becomes of its delivery, while `owner` holds it. */
type RecordValues = Omit<NewRow<'webhook_attempts'>, 'id'> & { status: DeliveryStatus; owner: string };

const attemptValues = (p: Placeholders<RecordValues>): Omit<NewRow<'webhook_attempts'>, 'id'> => ({
  delivery_id: p.delivery_id, attempted_at: p.attempted_at, url: p.url, status_code: p.status_code, duration_ms: p.duration_ms,
  succeeded: p.succeeded, response: p.response, error: p.error, next_attempt_at: p.next_attempt_at,
});

const moveDelivery = (creator: QueryCreator<Database>, p: Placeholders<RecordValues>) =>
  creator
    .updateTable('webhook_deliveries')
    .set({ status: p.status, attempts: sql<number>`attempts + 1`, next_attempt_at: p.next_attempt_at, lease_owner: null, lease_expires_at: null })
    .where('id', '=', p.delivery_id)
    .where('lease_owner', '=', p.owner);

/** PostgreSQL: the attempt's INSERT a data-modifying CTE of the delivery's UPDATE, one statement. */
const recordInOne = prepared((db, p: Placeholders<RecordValues>) =>
  // The CTE's creator has every table the delivery's UPDATE names.
  moveDelivery(db.with('attempt', (creator) => creator.insertInto('webhook_attempts').values(attemptValues(p))) as unknown as QueryCreator<Database>, p),
);
const insertAttempt = prepared((db, p: Placeholders<RecordValues>) => db.insertInto('webhook_attempts').values(attemptValues(p)));
const moveAlone = prepared((db, p: Placeholders<RecordValues>) => moveDelivery(db, p));

/** Ends a delivery without an attempt, while `owner` holds it. */
const failHeld = prepared((db, p: Placeholders<{ id: number; owner: string }>) =>
  db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, lease_owner: null, lease_expires_at: null })
    .where('id', '=', p.id)
    .where('lease_owner', '=', p.owner),
);

/** Gives the listed deliveries (a JSON list of ids) back, while `owner` holds them. */
const releaseHeld = prepared((db, p: Placeholders<{ ids: string; owner: string }>) =>
  db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where(sql<boolean>`id in (${jsonList(db, p.ids, 'integer')})`)
    .where('lease_owner', '=', p.owner),
);

/**
 * A disabled endpoint's pending deliveries end. One that a node holds is left to it: it
 * records its attempt, and the next claim finds the endpoint disabled and ends the delivery.
 */
const failPendingQuery = prepared((db, p: Placeholders<{ companyId: string; endpointId: string; now: string }>) =>
  db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null })
    .where('company_id', '=', p.companyId)
    .where('endpoint_id', '=', p.endpointId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<=', p.now)])),
);

/** The workers' queue of deliveries, and the attempts they record (docs/decisions.md, "Events and deliveries"). */
export function webhookQueueRepository({ db }: Pick<Store, 'db'>) {
  return {
    /**
     * Takes up to `limit` due deliveries for `owner` until `leaseExpiresAt`, soonest due
     * first, with their endpoints as they are now; the first attempts of `messageIds` (this
     * node's writes, answered) are due whatever their time (claimUpdate).
     *
     * Per engine: on PostgreSQL the UPDATE is a data-modifying CTE that the endpoints are
     * joined to, one round trip. SQLite's RETURNING sees only the updated table, so there the
     * endpoints are a second statement (a call in this process, not a round trip).
     */
    async claim(owner: string, now: string, leaseExpiresAt: string, limit: number, messageIds: readonly string[] = []): Promise<ClaimedDelivery[]> {
      const values: ClaimValues = { owner, now, leaseExpiresAt, limit, messageIds: JSON.stringify(messageIds) };
      const withMessages = messageIds.length > 0;
      if (isPostgres(db)) {
        const rows = await claimWithEndpoints(withMessages).execute(db, values);
        return rows.map(({ url, secret, disabled, ...delivery }) => ({
          delivery,
          endpoint: url === null || secret === null ? undefined : deliveryTarget({ url, secret, disabled }),
        }));
      }
      const claimed = await claimAlone(withMessages).execute(db, values);
      if (claimed.length === 0) return [];
      const targets = await webhooksRepository({ db }).targets(claimed.map((d) => [d.company_id, d.endpoint_id] as const));
      return claimed.map((delivery) => ({ delivery, endpoint: targets.get(targetKey(delivery.company_id, delivery.endpoint_id)) }));
    },

    /**
     * Records an attempt and moves its delivery on, all or nothing. The delivery changes
     * only while `owner` still holds it: a node whose lease ran out (another node has taken
     * the delivery) records what it saw and leaves the state to the holder.
     *
     * Per engine: on PostgreSQL the attempt's INSERT is a data-modifying CTE of the
     * delivery's UPDATE, one statement and one round trip; on SQLite the two run in one
     * transaction. A 410 also disables the endpoint and ends its pending deliveries, in one
     * transaction on both.
     */
    async record(delivery: DeliveryRow, owner: string, outcome: AttemptOutcome): Promise<void> {
      const values: RecordValues = {
        delivery_id: delivery.id, attempted_at: outcome.attemptedAt, url: outcome.url, status_code: outcome.statusCode,
        duration_ms: outcome.durationMs, succeeded: outcome.succeeded ? 1 : 0, response: outcome.response, error: outcome.error,
        next_attempt_at: outcome.nextAttemptAt, owner,
        status: outcome.succeeded ? 'succeeded' : outcome.nextAttemptAt ? 'pending' : 'failed',
      };
      if (isPostgres(db) && !outcome.gone) {
        await statementWithRetries(db, () => recordInOne.run(db, values));
        return;
      }
      await inTransaction({ db }, async (tx) => {
        await insertAttempt.run(tx.db, values);
        await moveAlone.run(tx.db, values);
        if (!outcome.gone) return;
        const endpoint = { companyId: delivery.company_id, endpointId: delivery.endpoint_id, now: new Date().toISOString() };
        await webhooksRepository(tx).disable(endpoint.companyId, endpoint.endpointId, endpoint.now);
        await failPendingQuery.run(tx.db, endpoint);
      });
    },

    /** Ends a delivery without an attempt: its endpoint is disabled or gone. */
    async fail(delivery: DeliveryRow, owner: string): Promise<void> {
      await failHeld.run(db, { id: delivery.id, owner });
    },

    /** Ends an endpoint's pending deliveries that no node holds (it was disabled; failPendingQuery). */
    async failPending(companyId: string, endpointId: string): Promise<void> {
      await failPendingQuery.run(db, { companyId, endpointId, now: new Date().toISOString() });
    },

    /** Gives deliveries back unattempted (a node stopping): due again at once, for any node. */
    async release(ids: number[], owner: string): Promise<void> {
      if (ids.length === 0) return;
      await releaseHeld.run(db, { ids: JSON.stringify(ids), owner });
    },
  };
}
