import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { Store } from '../db.js';
import { jsonHelpers, jsonTextArrayContains, parseJson, type Json } from '../json.js';
import { isPostgres } from '../migrations/helpers.js';
import { preparedPages, type Page } from '../paging.js';
import type { Database, NewRow, Row } from '../schema.js';
import { inTransaction, statementWithRetries } from '../transactions.js';

export type DeliveryRow = Row<'webhook_deliveries'>;
export type AttemptRow = Row<'webhook_attempts'>;
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** An event as the outbox records it: the body is final, signed and sent as it is. */
export interface OutboxEvent {
  companyId: string;
  type: string;
  messageId: string;
  payload: string;
  created: string;
  /** when any node may make the first attempt (outbox.ts HAND_OFF_MS) */
  due: string;
}

/** A delivery a worker holds, with what it needs of its endpoint as the endpoint is now. */
export interface ClaimedDelivery {
  delivery: DeliveryRow;
  /** undefined when the endpoint is gone */
  endpoint?: { url: string; secret: string; disabled: boolean };
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

export type MessageRow = DeliveryRow & { attempt_rows: AttemptRow[] };

/** Webhook deliveries: the outbox the writes fill, and the workers' queue. */
export function webhookDeliveriesRepository({ db }: Pick<Store, 'db'>) {
  return {
    /**
     * The event's deliveries, one per endpoint of its company that is not disabled and whose
     * EventTypes hold its type: one INSERT … SELECT, in the caller's transaction. Answers how
     * many there are.
     */
    async enqueue(event: OutboxEvent): Promise<number> {
      const [{ numInsertedOrUpdatedRows }] = await db
        .insertInto('webhook_deliveries')
        .columns(['company_id', 'endpoint_id', 'message_id', 'event_type', 'payload', 'created', 'status', 'attempts', 'next_attempt_at'])
        .expression((eb) =>
          eb
            .selectFrom('webhook_endpoints')
            .select((s) => [
              'company_id',
              'id',
              s.val(event.messageId).as('message_id'),
              s.val(event.type).as('event_type'),
              s.val(event.payload).as('payload'),
              s.val(event.created).as('created'),
              s.val('pending').as('status'),
              s.val(0).as('attempts'),
              s.val(event.due).as('next_attempt_at'),
            ])
            .where('company_id', '=', event.companyId)
            .where('disabled', '=', 0)
            .where(jsonTextArrayContains(db, 'webhook_endpoints.event_types', event.type)),
        )
        .execute();
      return Number(numInsertedOrUpdatedRows ?? 0);
    },

    /**
     * Takes up to `limit` due deliveries for `owner` until `leaseExpiresAt`, soonest due
     * first, with their endpoints as they are now; the first attempts of `messageIds` (this
     * node's writes, answered) are due whatever their time. One UPDATE decides which: on PostgreSQL
     * its subquery skips rows another node is claiming (FOR UPDATE SKIP LOCKED) and the lease
     * is checked again on the row it locks; SQLite runs one write at a time, so the claim is
     * atomic there.
     *
     * Per engine: on PostgreSQL the UPDATE is a data-modifying CTE that the endpoints are
     * joined to, one round trip. SQLite's RETURNING sees only the updated table, so there the
     * endpoints are a second statement (a call in this process, not a round trip).
     */
    async claim(owner: string, now: string, leaseExpiresAt: string, limit: number, messageIds: readonly string[] = []): Promise<ClaimedDelivery[]> {
      const free = (query: Kysely<Database>) =>
        query
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where((eb) =>
            messageIds.length === 0
              ? eb('next_attempt_at', '<=', now)
              : eb.or([eb('next_attempt_at', '<=', now), eb.and([eb('message_id', 'in', messageIds), eb('attempts', '=', 0)])]),
          )
          .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]));
      const due = free(db).orderBy('next_attempt_at').orderBy('id').limit(limit);
      const update = (query: QueryCreator<Database>) =>
        query
          .updateTable('webhook_deliveries')
          .set({ lease_owner: owner, lease_expires_at: leaseExpiresAt })
          .where('id', 'in', isPostgres(db) ? due.forUpdate().skipLocked() : due)
          .where('id', 'in', free(db));
      if (isPostgres(db)) {
        const rows = await db
          .with('claimed', (creator) => update(creator).returningAll())
          .selectFrom('claimed')
          .leftJoin('webhook_endpoints as e', (join) => join.onRef('e.company_id', '=', 'claimed.company_id').onRef('e.id', '=', 'claimed.endpoint_id'))
          .selectAll('claimed')
          .select(['e.url', 'e.secret', 'e.disabled'])
          .execute();
        return rows.map(({ url, secret, disabled, ...delivery }) => ({
          delivery,
          endpoint: url === null || secret === null ? undefined : endpointOf({ url, secret, disabled }),
        }));
      }
      const claimed = await update(db).returningAll().execute();
      if (claimed.length === 0) return [];
      const endpoints = await db
        .selectFrom('webhook_endpoints')
        .select(['company_id', 'id', 'url', 'secret', 'disabled'])
        .where((eb) => eb.or(claimed.map((d) => eb.and([eb('company_id', '=', d.company_id), eb('id', '=', d.endpoint_id)]))))
        .execute();
      return claimed.map((delivery) => {
        const endpoint = endpoints.find((e) => e.company_id === delivery.company_id && e.id === delivery.endpoint_id);
        return { delivery, endpoint: endpoint && endpointOf(endpoint) };
      });
    },

    /**
     * Records an attempt and moves its delivery on, all or nothing. The delivery changes
     * only while `owner` still holds it: a node whose lease ran out (another node has taken
     * the delivery) records what it saw and leaves the state to the holder.
     *
     * Per engine: on PostgreSQL the attempt's INSERT is a data-modifying CTE of the
     * delivery's UPDATE, one statement and one round trip; on SQLite the two run in one
     * transaction. A 410 also disables the endpoint, in one transaction on both.
     */
    async record(delivery: DeliveryRow, owner: string, outcome: AttemptOutcome): Promise<void> {
      const attempt: NewRow<'webhook_attempts'> = {
        delivery_id: delivery.id,
        attempted_at: outcome.attemptedAt,
        url: outcome.url,
        status_code: outcome.statusCode,
        duration_ms: outcome.durationMs,
        succeeded: outcome.succeeded ? 1 : 0,
        response: outcome.response,
        error: outcome.error,
        next_attempt_at: outcome.nextAttemptAt,
      };
      const moved = {
        status: (outcome.succeeded ? 'succeeded' : outcome.nextAttemptAt ? 'pending' : 'failed') satisfies DeliveryStatus,
        attempts: sql<number>`attempts + 1`,
        next_attempt_at: outcome.nextAttemptAt,
        lease_owner: null,
        lease_expires_at: null,
      };
      if (isPostgres(db) && !outcome.gone) {
        await statementWithRetries(db, () =>
          db
            .with('attempt', (creator) => creator.insertInto('webhook_attempts').values(attempt))
            .updateTable('webhook_deliveries')
            .set(moved)
            .where('id', '=', delivery.id)
            .where('lease_owner', '=', owner)
            .execute(),
        );
        return;
      }
      await inTransaction({ db }, async ({ db: trx }) => {
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        await trx.updateTable('webhook_deliveries').set(moved).where('id', '=', delivery.id).where('lease_owner', '=', owner).execute();
        if (outcome.gone) await disableEndpoint(trx, delivery.company_id, delivery.endpoint_id);
      });
    },

    /** Ends a delivery without an attempt: its endpoint is disabled or gone. */
    async fail(delivery: DeliveryRow, owner: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, lease_owner: null, lease_expires_at: null })
        .where('id', '=', delivery.id)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /** Ends an endpoint's pending deliveries that no node holds (it was disabled). */
    failPending(companyId: string, endpointId: string): Promise<void> {
      return failPending(db, companyId, endpointId);
    },

    /** Gives deliveries back unattempted (a node stopping): due again at once, for any node. */
    async release(ids: number[], owner: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /** A page of an endpoint's messages, newest first, each with its attempts (one statement). */
    async messages(
      companyId: string,
      endpointId: string,
      filter: { status?: DeliveryStatus },
      request: { Skip?: number | null; Take?: number | null },
    ): Promise<Page<MessageRow>> {
      const page = await messagePages(db, { companyId, endpointId, status: filter.status }, { ...request, OrderByDesc: 'Id' });
      return {
        ...page,
        rows: page.rows.map(({ attempts_json, ...row }) => ({ ...row, attempt_rows: parseJson(attempts_json) as AttemptRow[] })),
      };
    },
  };
}

interface MessageFilter {
  companyId: string;
  endpointId: string;
  status?: DeliveryStatus;
}

const messagePages = preparedPages<Database, 'webhook_deliveries', MessageFilter, Row<'webhook_deliveries'> & { attempts_json: Json<unknown[]> }>({
  shape: (filter) => (filter.status ? 'status' : ''),
  from: (db, p, shape) => {
    const own = db.selectFrom('webhook_deliveries').where('company_id', '=', p.companyId).where('endpoint_id', '=', p.endpointId);
    return shape === 'status' ? own.where('status', '=', p.status!) : own;
  },
  select: (q, db) =>
    q.selectAll('webhook_deliveries').select((eb) =>
      jsonHelpers(db)
        .array(
          eb
            .selectFrom('webhook_attempts')
            .select([
              'webhook_attempts.id', 'webhook_attempts.delivery_id', 'webhook_attempts.attempted_at', 'webhook_attempts.url',
              'webhook_attempts.status_code', 'webhook_attempts.duration_ms', 'webhook_attempts.succeeded',
              'webhook_attempts.response', 'webhook_attempts.error', 'webhook_attempts.next_attempt_at',
            ])
            .whereRef('webhook_attempts.delivery_id', '=', 'webhook_deliveries.id')
            .orderBy('webhook_attempts.id'),
        )
        .as('attempts_json'),
    ),
  sortable: { Id: 'webhook_deliveries.id' },
  tiebreak: 'webhook_deliveries.id',
});

/** What a worker needs of an endpoint row. */
function endpointOf(row: { url: string; secret: string; disabled: number | null }): NonNullable<ClaimedDelivery['endpoint']> {
  return { url: row.url, secret: row.secret, disabled: row.disabled === 1 };
}

/** 410 Gone: the endpoint is disabled and its pending deliveries end (docs/decisions.md, "Events and deliveries"). */
async function disableEndpoint(db: Kysely<Database>, companyId: string, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ disabled: 1, updated: new Date().toISOString() })
    .where('company_id', '=', companyId)
    .where('id', '=', endpointId)
    .execute();
  await failPending(db, companyId, endpointId);
}

/**
 * A disabled endpoint's pending deliveries end. One that a node holds is left to it: it
 * records its attempt, and the next claim finds the endpoint disabled and ends the delivery.
 */
async function failPending(db: Kysely<Database>, companyId: string, endpointId: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null })
    .where('company_id', '=', companyId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<=', new Date().toISOString())]))
    .execute();
}
