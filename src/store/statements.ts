import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogEvent } from 'kysely';

/**
 * Counts the SQL statements run on behalf of one piece of work (a request, in the tests
 * and the bench): each is a round trip to the database, cheap in-process on SQLite and
 * costly over a network on PostgreSQL. Both engines' Kysely instances log into it; outside
 * `countStatements` nothing is counted.
 */
const current = new AsyncLocalStorage<{ statements: number }>();

/** Kysely's `log` option: every statement, run or failed, is one round trip. */
export function logStatement(_event: LogEvent): void {
  const counter = current.getStore();
  if (counter) counter.statements++;
}

/** Runs `work` and answers its result with the number of statements it ran. */
export async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const counter = { statements: 0 };
  const result = await current.run(counter, work);
  return { result, statements: counter.statements };
}
