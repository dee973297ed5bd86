import type SQLite from 'better-sqlite3';
import type { Rng } from './rng.js';

/** Inserts rows through one cached prepared statement per (table, columns). */
export interface Bulk {
  insert(table: string, columns: readonly string[], row: readonly unknown[]): void;
}

export function createBulk(sqlite: SQLite.Database): Bulk {
  const statements = new Map<string, SQLite.Statement>();
  return {
    insert(table, columns, row) {
      const key = `${table}(${columns.join(',')})`;
      let statement = statements.get(key);
      if (!statement) {
        // Every name quoted: `from` and `to` are SQL keywords.
        const names = columns.map((c) => `"${c}"`).join(', ');
        statement = sqlite.prepare(`insert into "${table}" (${names}) values (${columns.map(() => '?').join(', ')})`);
        statements.set(key, statement);
      }
      statement.run(row as unknown[]);
    },
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
