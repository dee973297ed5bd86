import { sql, type Expression, type Kysely } from 'kysely';
import type { Store } from '../db.js';
import { isPostgres, inTransaction, statementWithRetries } from '../statements.js';
import { jsonList } from '../json.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { Database } from '../schema.js';
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
 * The deliveries a claim may take, by id: due (and, `withMessages`, the first attempts of the
 * listed messages, whatever their time), and held by no lease.
 */
function claimable(db: Kysely<Database>, p: Placeholders<ClaimValues>, withMessages: boolean) {
  return db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where((eb) =>
      withMessages
        ? eb.or([eb('next_attempt_at', '<=', p.now), eb.and([sql<boolean>`message_id in (${jsonList(db, p.messageIds, 'text')})`, eb('attempts', '=', 0)])])
        : eb('next_attempt_at', '<=', p.now),
    )
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', p.now)]));
}
const soonestFirst = (db: Kysely<Database>, p: Placeholders<ClaimValues>, withMessages: boolean) =>
  claimable(db, p, withMessages).orderBy('next_attempt_at').orderBy('id').limit(p.limit);

/**
 * PostgreSQL: up to `limit` of them, soonest due first, leased in one UPDATE, a data-modifying
 * CTE that the endpoints are joined to: one round trip. Its subquery skips rows another node
 * is claiming (FOR UPDATE SKIP LOCKED), and the lease is checked again on the row it locks.
 */
const claimWithEndpoints = preparedVariants(
  (withMessages: boolean) => String(withMessages),
  (withMessages) =>
    prepared((db, p: Placeholders<ClaimValues>) =>
      db
        .with('claimed', (creator) =>
          creator
            .updateTable('webhook_deliveries')
            .set({ lease_owner: p.owner, lease_expires_at: p.leaseExpiresAt })
            .where('id', 'in', soonestFirst(db, p, withMessages).forUpdate().skipLocked())
            .where('id', 'in', claimable(db, p, withMessages))
            .returningAll(),
        )
        .selectFrom('claimed')
        .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'claimed.company_id').onRef('e.id', '=', 'claimed.endpoint_id'))
        .selectAll('claimed')
        .select(['e.url', 'e.secret', 'e.disabled']),
    ),
);

/** SQLite: the deliveries whose ids `ids` selects, with their endpoints, soonest due first. */
const withEndpoints = (db: Kysely<Database>, ids: Expression<unknown>) =>
  db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.endpoint_id'))
    .selectAll('d')
    .select(['e.url', 'e.secret', 'e.disabled'])
    .where(sql<boolean>`d.id in (${ids})`)
    .orderBy('d.next_attempt_at')
    .orderBy('d.id');

/**
 * SQLite, whose RETURNING would see only the updated table (and costs more than a read): the
 * candidates are read with their endpoints, then leased by id, the lease checked again (another
 * process may share the file).
 */
const claimCandidates = preparedVariants(
  (withMessages: boolean) => String(withMessages),
  (withMessages) => prepared((db, p: Placeholders<ClaimValues>) => withEndpoints(db, soonestFirst(db, p, withMessages))),
);
type LeaseValues = { ids: string; owner: string; now: string; leaseExpiresAt: string };
// NOT INDEXED: the rows are found by id, not by scanning every pending one (due_idx).
const leaseCandidates = prepared(
  (_db, p: Placeholders<LeaseValues>) =>
    sql`update webhook_deliveries not indexed set lease_owner = ${p.owner}, lease_expires_at = ${p.leaseExpiresAt}
      where id in (select value from json_each(${p.ids})) and status = 'pending' and (lease_expires_at is null or lease_expires_at <= ${p.now})`,
);
/** The candidates this claim leased, when others took some between the read and the lease. */
const leasedCandidates = prepared((db, p: Placeholders<LeaseValues>) =>
  withEndpoints(db, jsonList(db, p.ids, 'integer')).where('d.lease_owner', '=', p.owner).where('d.lease_expires_at', '=', p.leaseExpiresAt),
);

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
     * joined to, one round trip. On SQLite the candidates are read with their endpoints, then
     * leased, a second statement (a call in this process, not a round trip).
     */
    async claim(owner: string, now: string, leaseExpiresAt: string, limit: number, messageIds: readonly string[] = []): Promise<ClaimedDelivery[]> {
      const withMessages = messageIds.length > 0;
      const values: ClaimValues = { owner, now, leaseExpiresAt, limit, messageIds: JSON.stringify(messageIds) };
      let rows;
      if (isPostgres(db)) rows = await claimWithEndpoints(withMessages).execute(db, values);
      else {
        const candidates = await claimCandidates(withMessages).execute(db, values);
        if (candidates.length === 0) return [];
        const lease: LeaseValues = { ids: JSON.stringify(candidates.map((c) => c.id)), owner, now, leaseExpiresAt };
        const { numAffectedRows } = await leaseCandidates.run(db, lease);
        rows = Number(numAffectedRows) === candidates.length
          ? candidates.map((c) => ({ ...c, lease_owner: owner, lease_expires_at: leaseExpiresAt }))
          : await leasedCandidates.execute(db, lease);
      }
      return rows.map(({ url, secret, disabled, ...delivery }) => ({
        delivery,
        endpoint: url === null || secret === null ? undefined : deliveryTarget({ url, secret, disabled }),
      }));
    },

    /**
     * Records a batch of attempts of distinct deliveries and moves them on, all or nothing. A
     * delivery changes only while `owner` still holds it. On PostgreSQL the attempts' INSERT
     * is a data-modifying CTE of the deliveries' UPDATE (one round trip); on SQLite the two
     * run in one transaction. A 410 also disables its endpoint and ends its pending deliveries.
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
