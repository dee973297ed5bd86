import { sql, type Kysely } from 'kysely';

/**
 * What the generated store types (src/generated/db.ts) take from the migrated database
 * besides what kysely-codegen reads itself. Rules rather than a list of columns, so a new
 * migration is typed without anyone remembering to add it here:
 * - `Bool`: the column has the `CHECK (column IN (0, 1))` that migrations/helpers.ts `flag`
 *   and `optionalFlag` write; the constraint is what makes it a flag, so it decides.
 * - `IsoDate` / `Timespan`: TEXT columns named by the store's convention (last word of the
 *   name `created`, `updated`, `date`, `at`, `from`, `to` / `time`). Nothing in the database
 *   marks a date column (both engines keep it as plain text, see ../src/store/schema.ts), so
 *   the name is the only signal; test/store/column-types.test.ts checks the rule against the
 *   demo data both ways, so a date column the names miss fails there.
 */

export type ColumnKind = 'Bool' | 'IsoDate' | 'Timespan';
export type Affinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

export interface ColumnFacts {
  table: string;
  column: string;
  affinity: Affinity;
  primaryKey: boolean;
  /** Constrained to 0/1 by a CHECK. */
  flag: boolean;
}

const FLAG_CHECK = /\bcheck\s*\(\s*"?(\w+)"?\s+in\s*\(\s*0\s*,\s*1\s*\)\s*\)/gi;
const DATE_TIME_WORDS = new Set(['created', 'updated', 'date', 'at', 'from', 'to']);

/**
 * SQLite's rules for the affinity of a declared type (https://www.sqlite.org/datatype3.html,
 * 3.1), which is what the engine stores and returns. kysely-codegen maps only the exact names
 * `integer`, `real`, `text`…, so the portable `bigint` and `double precision` the migrations
 * use would otherwise come out as `string`.
 */
export function affinity(declaredType: string): Affinity {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  if (/REAL|FLOA|DOUB/.test(type)) return 'real';
  return 'numeric';
}

/** Every column of the store's tables (Kysely's own tables left out, as the generator does). */
export async function readColumnFacts(db: Kysely<any>): Promise<ColumnFacts[]> {
  const facts: ColumnFacts[] = [];
  for (const { name: table } of await db.introspection.getTables()) {
    const { rows: ddl } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
    const flags = new Set([...ddl[0].sql.matchAll(FLAG_CHECK)].map((match) => match[1]));
    const { rows } = await sql<{ name: string; type: string; pk: number }>`select name, type, pk from pragma_table_info(${table})`.execute(db);
    for (const row of rows) {
      facts.push({ table, column: row.name, affinity: affinity(row.type), primaryKey: row.pk > 0, flag: flags.has(row.name) });
    }
  }
  return facts;
}

export function kindOf(facts: ColumnFacts): ColumnKind | undefined {
  if (facts.flag) {
    if (facts.affinity !== 'integer') throw new Error(`${facts.table}.${facts.column}: a 0/1 CHECK on a ${facts.affinity} column`);
    return 'Bool';
  }
  if (facts.affinity !== 'text') return undefined;
  const lastWord = facts.column.slice(facts.column.lastIndexOf('_') + 1);
  if (lastWord === 'time') return 'Timespan';
  return DATE_TIME_WORDS.has(lastWord) ? 'IsoDate' : undefined;
}
