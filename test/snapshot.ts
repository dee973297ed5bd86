import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Test } from 'tap';
import type { Store } from '../src/store/db.js';
import { TABLE_NAMES, type TableName } from '../src/store/schema.js';

/**
 * "A refused request changes nothing", for the whole store:
 *
 *   const unchanged = await snapshot(api.store);
 *   … refused requests …
 *   await unchanged.assert(t, 'refusals changed nothing');
 *
 * It compares a digest of every table: `select * from <t> order by 1, 2, …, n` for each
 * table of TABLE_NAMES, hashed. Two equal digests mean no row of any table was added,
 * removed or changed; when they differ, the message lists the rows that did.
 *
 * The column count of each table is read once per store (introspection is the slow part);
 * ordering by every column position makes the row order total, so the digest does not
 * depend on the engine's scan order.
 */
const columnCounts = new WeakMap<Store, Map<TableName, number>>();

async function countsOf(store: Store): Promise<Map<TableName, number>> {
  let counts = columnCounts.get(store);
  if (counts) return counts;
  const tables = await store.db.introspection.getTables();
  counts = new Map();
  for (const name of TABLE_NAMES) {
    const table = tables.find((t) => t.name === name);
    if (!table) throw new Error(`digest: the store has no table ${name}`);
    counts.set(name, table.columns.length);
  }
  columnCounts.set(store, counts);
  return counts;
}

/** The rows of one table, in the total order of all its columns. */
export async function tableRows(store: Store, table: TableName): Promise<unknown[]> {
  const columns = (await countsOf(store)).get(table)!;
  const positions = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
  const { rows } = await sql`select * from ${sql.table(table)} order by ${sql.raw(positions)}`.execute(store.db);
  return rows;
}

/** Every table's rows as JSON lines, and their sha256: equal digests ⇔ equal contents. */
export interface StoreState {
  digest: string;
  tables: Record<string, string[]>;
}

export async function storeState(store: Store): Promise<StoreState> {
  const hash = createHash('sha256');
  const tables: Record<string, string[]> = {};
  for (const table of TABLE_NAMES) {
    const lines = (await tableRows(store, table)).map((row) => JSON.stringify(row));
    tables[table] = lines;
    hash.update(`${table}\u0000${lines.join('\n')}\u0000`);
  }
  return { digest: hash.digest('hex'), tables };
}

/** The rows that differ between two states, per table (for a readable failure message). */
export function stateDiff(before: StoreState, after: StoreState): string {
  const lines: string[] = [];
  for (const table of TABLE_NAMES) {
    const a = new Set(before.tables[table]);
    const b = new Set(after.tables[table]);
    const removed = [...a].filter((r) => !b.has(r));
    const added = [...b].filter((r) => !a.has(r));
    if (removed.length === 0 && added.length === 0) continue;
    lines.push(`${table}:`, ...removed.map((r) => `  - ${r.slice(0, 500)}`), ...added.map((r) => `  + ${r.slice(0, 500)}`));
  }
  return lines.join('\n');
}

export interface Snapshot {
  /** the store as it was when the snapshot was taken */
  readonly state: StoreState;
  /** Asserts that the store is still as it was, listing the rows that changed if not. */
  assert(t: Pick<Test, 'equal'>, message?: string): Promise<void>;
}

export async function snapshot(store: Store): Promise<Snapshot> {
  const state = await storeState(store);
  return {
    state,
    async assert(t, message = 'nothing changed') {
      const now = await storeState(store);
      const diff = now.digest === state.digest ? '' : `\n${stateDiff(state, now)}`;
      t.equal(now.digest, state.digest, `${message}${diff}`);
    },
  };
}
