import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import type { Rng } from './rng.js';

/**
 * The bind parameters one statement may carry on both engines: SQLite's limit (32,766 in
 * the build better-sqlite3 ships); PostgreSQL's is 65,535.
 */
export const MAX_BIND_PARAMETERS = 32_766;

/** Rows of `columns` values that one multi-row INSERT can carry within `limit` parameters. */
export function rowsPerChunk(columns: number, limit = MAX_BIND_PARAMETERS): number {
  if (!Number.isInteger(columns) || columns < 1 || columns > limit) throw new RangeError(`a row of ${columns} columns does not fit ${limit} parameters`);
  return Math.floor(limit / columns);
}

/**
 * Inserts rows through Kysely, so one loader serves SQLite and PostgreSQL: rows are
 * buffered per table and written as multi-row INSERTs (one round trip per chunk rather
 * than per row, which is what makes the load bearable over a PostgreSQL connection).
 */
export interface Bulk {
  insert(table: keyof Database, columns: readonly string[], row: readonly unknown[]): Promise<void>;
  /** writes whatever is still buffered */
  flush(): Promise<void>;
}

export function createBulk(db: Kysely<Database>): Bulk {
  // Insertion order of the tables: parents are met before their children, so flushing every
  // buffer in this order whenever one is full never writes a row before the row it refers to.
  const buffers = new Map<keyof Database, { columns: readonly string[]; rows: Array<Record<string, unknown>> }>();
  const flush = async () => {
    for (const [table, buffer] of buffers) {
      if (buffer.rows.length === 0) continue;
      const rows = buffer.rows;
      buffer.rows = [];
      await db.insertInto(table).values(rows as never).execute();
    }
  };
  return {
    async insert(table, columns, row) {
      let buffer = buffers.get(table);
      if (!buffer) buffers.set(table, (buffer = { columns, rows: [] }));
      if (buffer.columns.join() !== columns.join()) throw new Error(`${table}: every row must name the same columns`);
      buffer.rows.push(Object.fromEntries(columns.map((column, i) => [column, row[i]])));
      if (buffer.rows.length >= rowsPerChunk(columns.length)) await flush();
    },
    flush,
  };
}

/** What the requests of the bench need to know about the data set (stored beside the file). */
export interface BenchMeta {
  scale: number;
  seed: string;
  /** the instant the dates of the set are relative to */
  generatedAt: string;
  generationMs: number;
  counts: Record<string, number>;
  /** the company every company-scoped request is made for */
  hotCompanyId: string;
  hot: {
    printouts: number;
    mcpRows: number;
    services: number[];
    /** resources that each have at least one blocking (Booked) booking: DeleteResource answers 409 */
    blockedResources: number[];
    /** valid gift cards with their one connected customer and service: GetRebateCodeBySign answers 200 */
    lookupCodes: Array<{ sign: string; email: string; serviceId: number }>;
    /** value cards for CreateRebateCodeTransaction (Increase) */
    valueCardIds: number[];
  };
}

/** The state the generator steps share. */
export interface GenContext {
  rng: Rng;
  bulk: Bulk;
  /** the anchor instant (ms) */
  now: number;
  /** row count for a full-scale total */
  count(fullScaleTotal: number): number;
  companies: string[];
  /** a company's position in `companies` (its tags are ids 5n+1 … 5n+5) */
  companyIndex: Map<string, number>;
  hot: string;
  /** the owner of the next company-owned row: the hot company a fixed share, the others evenly */
  owner(): string;
  services: Map<string, number[]>;
  customers: Map<string, Array<{ id: string; email: string }>>;
  resources: Map<string, number[]>;
  meta: BenchMeta;
}

export const DAY = 86_400_000;
export const iso = (ms: number) => new Date(ms).toISOString();
