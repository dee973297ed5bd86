import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Which engine a connection speaks to: PostgreSQL, or else SQLite, the two the store is
 * written for. Repositories and migrations ask here, where the engines' differences live
 * (sqlite.ts and postgres.ts say why each one differs).
 */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
