import type { Kysely, SelectQueryBuilder } from 'kysely';
import { isPostgres } from './statements.js';

/**
 * Row locks for the paths that read rows and then write on what they read (decide from a
 * resource's bookings, then delete it; check that resources exist, then link to them).
 *
 * PostgreSQL runs transactions side by side, so the rows read are locked until commit:
 * `update` for a row the transaction will change or delete (no one links to it, changes or
 * deletes it meanwhile), `key share` for a row it will only refer to (no one deletes it
 * meanwhile; others may still read, link to and update it). Under READ COMMITTED the
 * statement that takes a lock reads from a snapshot taken before it waited for the lock: a
 * decision made from it must be checked again by the write (a later statement, whose
 * snapshot comes after the lock).
 *
 * SQLite has no row locks and needs none: one write transaction at a time holds the whole
 * database, and a transaction whose reads went stale before it wrote is refused
 * (SQLITE_BUSY_SNAPSHOT) and run again. Its SQL has no `FOR …` clause, so there the lock is
 * left out.
 */
export type LockMode = 'update' | 'key share';

/** `query.$call(lockRows(db, 'update'))`: the query's rows, locked in `mode` on PostgreSQL. */
export function lockRows(db: Kysely<any>, mode: LockMode) {
  const lock = isPostgres(db);
  return <QB extends SelectQueryBuilder<any, any, any>>(query: QB): QB => {
    if (!lock) return query;
    return (mode === 'update' ? query.forUpdate() : query.forKeyShare()) as QB;
  };
}
