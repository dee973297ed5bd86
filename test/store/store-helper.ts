import { sql } from 'kysely';
import type { Test } from 'tap';
import type { Store } from '../../src/store/db.js';
import { testStore } from '../test-store.js';
import { TABLE_NAMES, type TableName } from '../../src/store/schema.js';

/** A fresh migrated store of the engine under test (../test-store.ts), closed when the test ends. */
export const memoryStore = (t: Test): Promise<Store> => testStore(t);

/** Row count of every table (to prove a refused write left nothing, compare a snapshot of ../snapshot.ts). */
export async function rowCounts(store: Store): Promise<Record<TableName, number>> {
  const counts = {} as Record<TableName, number>;
  for (const table of TABLE_NAMES) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
    counts[table] = Number(rows[0].n);
  }
  return counts;
}
