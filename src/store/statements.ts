import { AsyncLocalStorage } from 'node:async_hooks';
import type { KyselyPlugin, LogEvent } from 'kysely';

/**
 * Counts what one piece of work (a request, in the tests and the bench) asks of the store:
 * the SQL statements it runs (each a round trip to the database, cheap in-process on SQLite
 * and costly over a network on PostgreSQL), and the queries it builds and compiles (each a
 * cost of this process, which a prepared query pays once: store/prepared.ts). Both engines'
 * Kysely instances report into it; outside `countStatements` nothing is counted.
 */
/** A statement as it was sent: its SQL and its values. */
export interface SentStatement {
  sql: string;
  parameters: readonly unknown[];
  /** the `id` of the first row it answered, if any (a new row's, for an INSERT … RETURNING) */
  id?: unknown;
}

interface Counter {
  statements: number;
  compiles: number;
  /** the statements themselves, when asked for (the bench replays them) */
  sent?: SentStatement[];
}

const current = new AsyncLocalStorage<Counter>();

/** Kysely's `log` option: every statement, run or failed, is one round trip. */
export function logStatement(event: LogEvent): void {
  const counter = current.getStore();
  if (!counter) return;
  counter.statements++;
  counter.sent?.push({ sql: event.query.sql, parameters: event.query.parameters });
}

/** A Kysely plugin that sees every query compiled (Kysely passes each through its plugins then). */
export const compileCounter: KyselyPlugin = {
  transformQuery({ node }) {
    const counter = current.getStore();
    if (counter) counter.compiles++;
    return node;
  },
  transformResult: async ({ result }) => {
    // Kysely logs a statement when the driver answers, then passes its result through the
    // plugins: the last statement kept is this result's.
    const sent = current.getStore()?.sent?.at(-1);
    const first = result.rows[0] as { id?: unknown } | undefined;
    if (sent && first && 'id' in first) sent.id = first.id;
    return result;
  },
};

/**
 * Runs `work` and answers its result with the statements it ran and the queries it
 * compiled; with `keep`, also the statements themselves (transaction control aside).
 */
export async function countStatements<T>(
  work: () => Promise<T>,
  options: { keep?: boolean } = {},
): Promise<{ result: T; statements: number; compiles: number; sent: SentStatement[] }> {
  const counter: Counter = { statements: 0, compiles: 0, ...(options.keep ? { sent: [] } : {}) };
  const result = await current.run(counter, work);
  return { result, statements: counter.statements, compiles: counter.compiles, sent: counter.sent ?? [] };
}
