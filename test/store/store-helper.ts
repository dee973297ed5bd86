import { sql } from 'kysely';
import type { Test } from 'tap';
import { openStore, type Store } from '../../src/store/db.js';
import { TABLE_NAMES, type TableName } from '../../src/store/schema.js';

/** A migrated in-memory store, closed when the test ends. */
export async function memoryStore(t: Test): Promise<Store> {
  const store = await openStore('file::memory:');
  t.teardown(() => store.close());
  return store;
}

/** Row count of every table (to prove a refused write left nothing, compare a snapshot of ../snapshot.ts). */
export async function rowCounts(store: Store): Promise<Record<TableName, number>> {
  const counts = {} as Record<TableName, number>;
  for (const table of TABLE_NAMES) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
    counts[table] = Number(rows[0].n);
  }
  return counts;
}
