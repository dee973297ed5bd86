import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../statements.js';

/**
 * Column shapes shared by the migrations. Everything here compiles to SQL that SQLite
 * and PostgreSQL both accept, except `generatedId`, the one place where the engines
 * differ and which therefore asks the dialect.
 */

type Column = (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/**
 * An integer primary key the database fills in when an insert leaves it out. SQLite:
 * `integer primary key autoincrement` (a rowid alias; AUTOINCREMENT so the id of a deleted
 * row is never handed out again). PostgreSQL: an identity column; explicit ids are still
 * accepted (imports keep their ids), the sequence must then be moved past them.
 */
export function generatedId(db: Kysely<any>): Column {
  return isPostgres(db)
    ? (col) => col.primaryKey().generatedByDefaultAsIdentity()
    : (col) => col.primaryKey().autoIncrement();
}

/** A 0/1 flag, NOT NULL with a default. */
export function flag(name: string, defaultValue: 0 | 1): Column {
  return (col) => col.notNull().defaultTo(defaultValue).check(sql`${sql.ref(name)} in (0, 1)`);
}

/** A nullable 0/1 flag (null = not set). */
export function optionalFlag(name: string): Column {
  return (col) => col.check(sql`${sql.ref(name)} in (0, 1)`);
}

/** `company_id` of a company-owned row; deleting a company deletes its data. */
export const companyId: Column = (col) =>
  col.notNull().references('companies.id').onDelete('cascade');

/** A NOT NULL reference to a parent row whose children go with it (link tables). */
export function parent(target: string): Column {
  return (col) => col.notNull().references(target).onDelete('cascade');
}

/** A NOT NULL integer with a default and a lower bound. */
export function count(name: string, defaultValue: number, min = 0): Column {
  return (col) => col.notNull().defaultTo(defaultValue).check(sql`${sql.ref(name)} >= ${sql.lit(min)}`);
}

/**
 * An index on a table that already holds rows, for a migration with `transaction: false`:
 * on PostgreSQL built concurrently, so writes go on meanwhile; a build that failed before
 * (an invalid index) is dropped and made again. Safe to run again.
 */
export async function indexOnExistingTable(db: Kysely<any>, name: string, table: string, columns: string[]): Promise<void> {
  const on = sql`${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})`;
  if (!isPostgres(db)) {
    await sql`create index if not exists ${sql.id(name)} on ${on}`.execute(db);
    return;
  }
  const { rows } = await sql`select 1 from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name} and not i.indisvalid`.execute(db);
  if (rows.length > 0) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  await sql`create index concurrently if not exists ${sql.id(name)} on ${on}`.execute(db);
}
