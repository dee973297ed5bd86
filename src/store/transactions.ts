import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Queries bound to the store, or to one transaction of it. */
export type Queries<Q> = (db: Kysely<Database>) => Q;

/**
 * A repository: its queries on the store, plus `transaction`, which runs `work` on the same
 * queries inside one database transaction, so that the checks and writes of one operation
 * commit together (a throw rolls everything back).
 */
export function transactional<Q extends object>(db: Kysely<Database>, queries: Queries<Q>) {
  return {
    ...queries(db),
    transaction: <T>(work: (trx: Q) => Promise<T>): Promise<T> => db.transaction().execute((trx) => work(queries(trx))),
  };
}

/** Runs `work` in one database transaction (pass `tx` to the repositories): all or nothing. */
export function inTransaction<T>({ db }: { db: Kysely<Database> }, work: (tx: { db: Kysely<Database> }) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => work({ db: trx }));
}
