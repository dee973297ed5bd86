import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { Store } from '../db.js';
import { isPostgres } from '../engines/engine.js';
import { jsonList } from '../json.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { Database } from '../schema.js';
import { inTransaction, statementWithRetries } from '../transactions.js';
import { writeAttempts, type AttemptOutcome, type RecordedAttempt } from './webhook-attempts.js';
import type { DeliveryRow } from './webhook-messages.js';
import { deliveryTarget, targetKey, webhooksRepository, type DeliveryTarget } from './webhooks.js';

/** A delivery a worker holds, with its endpoint as the endpoint is now. */
export interface ClaimedDelivery {
  delivery: DeliveryRow;
  /** undefined when the endpoint is gone */
  endpoint?: DeliveryTarget;
}

/** `messageIds`: a JSON list of this node's answered writes' message ids (json.ts jsonList). */
type ClaimValues = { owner: string; now: string; leaseExpiresAt: string; limit: number; messageIds: string };

/**
 * The claim's UPDATE: up to `limit` due deliveries (and, `withMessages`, the first attempts of
 * the listed messages, whatever their time), soonest due first, that no lease holds. On
 * PostgreSQL its subquery skips rows another node is claiming (FOR UPDATE SKIP LOCKED) and
 * the lease is checked again on the row it locks; SQLite runs one write at a time, so there
 * the first look is the last (and the check again cost as much as the rest of the claim).
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
  const update = creator.updateTable('webhook_deliveries').set({ lease_owner: p.owner, lease_expires_at: p.leaseExpiresAt });
  return isPostgres(db) ? update.where('id', 'in', due.forUpdate().skipLocked()).where('id', 'in', free()) : update.where('id', 'in', due);
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

/**
 * SQLite: the UPDATE alone, then the rows it took read back with their endpoints, by owner and
 * lease (its RETURNING would see only the updated table, and costs more than the read).
 */
const claimAlone = preparedVariants(
  (withMessages: boolean) => String(withMessages),
  (withMessages) => prepared((db, p: Placeholders<ClaimValues>) => claimUpdate(db, db, p, withMessages)),
);
const claimedRows = prepared((db, p: Placeholders<Pick<ClaimValues, 'owner' | 'leaseExpiresAt'>>) =>
  db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.endpoint_id'))
    .selectAll('d')
    .select(['e.url', 'e.secret', 'e.disabled'])
    .where('d.status', '=', 'pending')
    .where('d.lease_owner', '=', p.owner)
    .where('d.lease_expires_at', '=', p.leaseExpiresAt)
    .orderBy('d.next_attempt_at')
    .orderBy('d.id'),
);
/** So that the rows are the claim's alone, an owner's claims end their leases at different milliseconds. */
const lastLeases = new Map<string, number>();
function distinctLease(owner: string, leaseExpiresAt: string): string {
  const lease = Math.max(Date.parse(leaseExpiresAt), (lastLeases.get(owner) ?? 0) + 1);
  if (lastLeases.size >= 1000 && !lastLeases.has(owner)) lastLeases.clear();
  lastLeases.set(owner, lease);
  return new Date(lease).toISOString();
}

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

export type { AttemptOutcome, RecordedAttempt };

/** The workers' queue of deliveries, and the attempts they record (docs/decisions.md, "Events and deliveries"). */
export function webhookQueueRepository({ db }: Pick<Store, 'db'>) {
  async function recordAll(owner: string, attempts: readonly RecordedAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const gone = new Map(attempts.filter((a) => a.outcome.gone).map(({ delivery: d }) => [targetKey(d.company_id, d.endpoint_id), d] as const));
    if (isPostgres(db) && gone.size === 0) {
      await statementWithRetries(db, () => writeAttempts(db, owner, attempts));
      return;
    }
    await inTransaction({ db }, async (tx) => {
      await writeAttempts(tx.db, owner, attempts);
      const now = new Date().toISOString();
      for (const { company_id: companyId, endpoint_id: endpointId } of gone.values()) {
        await webhooksRepository(tx).disable(companyId, endpointId, now);
        await failPendingQuery.run(tx.db, { companyId, endpointId, now });
      }
    });
  }

  return {
    /**
     * Takes up to `limit` due deliveries for `owner` until `leaseExpiresAt`, soonest due
     * first, with their endpoints as they are now; the first attempts of `messageIds` (this
     * node's writes, answered) are due whatever their time (claimUpdate).
     *
     * Per engine: on PostgreSQL the UPDATE is a data-modifying CTE that the endpoints are
     * joined to, one round trip. On SQLite the rows it took are read back with their
     * endpoints, a second statement (a call in this process, not a round trip).
     */
    async claim(owner: string, now: string, leaseExpiresAt: string, limit: number, messageIds: readonly string[] = []): Promise<ClaimedDelivery[]> {
      const withMessages = messageIds.length > 0;
      let rows;
      if (isPostgres(db)) {
        rows = await claimWithEndpoints(withMessages).execute(db, { owner, now, leaseExpiresAt, limit, messageIds: JSON.stringify(messageIds) });
      } else {
        const values: ClaimValues = { owner, now, leaseExpiresAt: distinctLease(owner, leaseExpiresAt), limit, messageIds: JSON.stringify(messageIds) };
        const { numAffectedRows } = await claimAlone(withMessages).run(db, values);
        rows = numAffectedRows ? await claimedRows.execute(db, values) : [];
      }
      return rows.map(({ url, secret, disabled, ...delivery }) => ({
        delivery,
        endpoint: url === null || secret === null ? undefined : deliveryTarget({ url, secret, disabled }),
      }));
    },

    /**
     * Records a batch of attempts, of distinct deliveries, and moves their deliveries on, all
     * or nothing, in the same statements whatever the batch's length. A delivery changes only
     * while `owner` still holds it: a node whose lease ran out (another node has taken the
     * delivery) records what it saw and leaves the state to the holder.
     *
     * Per engine: on PostgreSQL the attempts' INSERT is a data-modifying CTE of the
     * deliveries' UPDATE, one statement and one round trip; on SQLite the two run in one
     * transaction. A 410 also disables its endpoint and ends the endpoint's pending
     * deliveries, in one transaction with the batch on both.
     */
    recordAll,

    /** Records one attempt: recordAll of one. */
    record: (delivery: DeliveryRow, owner: string, outcome: AttemptOutcome) => recordAll(owner, [{ delivery, outcome }]),

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
