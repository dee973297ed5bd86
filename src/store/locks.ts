import type { Kysely, SelectQueryBuilder } from 'kysely';
import { isPostgres } from './statements.js';

/**
 * Row locks for the paths that read rows and then write on what they read: `update` for a
 * row the transaction will change or delete, `key share` for one it only refers to. On
 * PostgreSQL a decision made from a locked read is checked again by the write; SQLite has no
 * row locks and needs none, so there the lock is left out (docs/decisions.md, "Engines").
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
