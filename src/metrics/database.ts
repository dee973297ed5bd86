import { sql } from 'kysely';
import type { Store } from '../store/db.js';
import { poolUse } from '../store/engines/postgres.js';
import { prepared } from '../store/prepared.js';
import type { ScrapedFigures } from './metrics.js';

/**
 * The outbox in one statement: the pending deliveries, the oldest one's `created`, and the
 * endpoints that have one whose attempts all failed so far (a success ends a delivery, so a
 * pending one with attempts has only failed ones). The claim's index (status, next attempt)
 * finds the pending rows.
 */
const outbox = prepared((db) =>
  db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .select((eb) => [
      eb.fn.countAll<number>().as('pending'),
      eb.fn.min<string | null>('created').as('oldest'),
      sql<number>`count(distinct case when attempts > 0 then company_id || ' ' || endpoint_id end)`.as('failing'),
    ]),
);

/**
 * What a scrape reads beside the counters: the outbox (database-wide) and this node's
 * PostgreSQL pool. A database that does not answer leaves the outbox out (logged by the caller).
 */
export async function scrapeFigures(store: Store, now = Date.now()): Promise<ScrapedFigures & { error?: unknown }> {
  const pool = poolUse(store.db);
  try {
    const row = await outbox.takeFirst(store.db, {});
    const oldest = row?.oldest ? Date.parse(row.oldest) : now;
    return {
      pool,
      outbox: {
        pending: Number(row?.pending ?? 0),
        oldestAgeSeconds: Math.max(0, (now - oldest) / 1000),
        failingEndpoints: Number(row?.failing ?? 0),
      },
    };
  } catch (error) {
    return { pool, error };
  }
}
