import type { SentStatement } from '../../src/store/statements.js';

/** One route of the bare SQL baseline (baseline-sql.ts): the statements an operation ran. */
export interface SqlRoute {
  path: string;
  write: boolean;
  /** the statements of one or more calls, replayed in turn: each call's list has the same SQL */
  variants: Array<SqlStatement[]>;
}

export interface SqlStatement {
    sql: string;
    parameters: unknown[];
  /** per parameter: the index of the earlier statement whose new row's id it is, to use the id that statement makes now */
  idOf?: Array<number | null>;
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|savepoint|release)\b/i;

/**
 * The statements of a recorded call without its transaction control (the baseline runs a
 * write's in a transaction of its own). A parameter that is the id an earlier INSERT made
 * (a new template's links name it) is marked, so that a replay uses the id its own INSERT makes.
 */
export function bareStatements(sent: SentStatement[]): SqlStatement[] {
  const kept = sent.filter((s) => !TRANSACTION_CONTROL.test(s.sql));
  return kept.map((s, i) => {
    const made = kept.slice(0, i).map((earlier, j) => (/^\s*insert\b/i.test(earlier.sql) && typeof earlier.id === 'number' ? [j, earlier.id] as const : undefined)).filter((x) => x !== undefined);
    const idOf = s.parameters.map((value) => made.find(([, id]) => id === value)?.[0] ?? null);
    return { sql: s.sql, parameters: [...s.parameters], ...(idOf.some((x) => x !== null) ? { idOf } : {}) };
  });
}
