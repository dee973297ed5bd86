import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';
import { countStatements, type SentStatement } from '../../src/store/statements.js';
import type { Operation, OpRequest } from './operations.js';
import { createRng } from './rng.js';

/** One call of an operation with the SQL statements it ran. */
export interface CountedCall {
  statements: number;
  status: number;
  /** the call had the operation's expected status (a count of an error path says little) */
  ok: boolean;
  /**
   * The statements of the call and, for an operation whose load varies its request (a pool of
   * codes or resources), of more calls: the bare SQL baseline replays them in turn, so that it
   * reads and writes the same rows the API is sent to, not one row kept hot.
   */
  variants: SentStatement[][];
}

/** How many varied calls of an operation are recorded for the baseline to replay. */
const VARIANTS = 32;

/**
 * Calls each operation once (and its variants), in this process, on the app built over
 * `databaseUrl`'s store, and counts the statements each call runs (Kysely's log, per call
 * through AsyncLocalStorage, as test/store/round-trips.test.ts does): an exact count, which no
 * load on the machine changes. Without a delivery worker, whose claim a nudged write would
 * otherwise count as its own. Writes do write: call this on a run copy, never on a cached set.
 */
export async function countOperationStatements(databaseUrl: string, secret: string, ops: Operation[], requests: Map<string, OpRequest>): Promise<Map<string, CountedCall>> {
  const config = loadConfig(
    { DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent', DEMO_DATA: false, WEBHOOK_DELIVERY: false, RATE_LIMIT_MAX: 0, REBATE_LOOKUP_RATE_LIMIT_MAX: 0 },
    {},
  );
  const store = await openStore(databaseUrl);
  const app = await buildApp(config, { store }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  try {
    // Booted first: a request made before runs from the boot's callbacks, outside the count.
    await app.ready();
    // Awaited inside: app.inject answers a lazy chain that sends nothing until awaited, and
    // awaited outside it would run outside the count.
    const call = (method: OpRequest['method'], url: string, headers: Record<string, string>, body?: string) =>
      countStatements(async () => await app.inject({ method, url, headers, ...(body ? { payload: body } : {}) }), { keep: true });
    const counted = new Map<string, CountedCall>();
    for (const op of ops) {
      const { method, path, headers, body, vary } = requests.get(op.id)!;
      const first = await call(method, path, headers, body);
      const variants = [first.sent];
      const rng = createRng(`statements:${op.id}`);
      for (let i = 1; vary && i < VARIANTS; i++) {
        const varied = { path, body, ...vary(rng) };
        const again = await call(method, varied.path, headers, varied.body);
        if (again.result.statusCode === op.status) variants.push(again.sent);
      }
      counted.set(op.id, { statements: first.statements, status: first.result.statusCode, ok: first.result.statusCode === op.status, variants });
    }
    return counted;
  } finally {
    await app.close();
    await store.close();
  }
}

/** One route of the bare SQL baseline (baseline-sql.ts): the statements an operation ran. */
export interface SqlRoute {
  path: string;
  write: boolean;
  /** the statements of one or more calls, replayed in turn: each call's list has the same SQL */
  variants: SqlStatement[][];
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
    const made = kept.slice(0, i).flatMap((earlier, j) => (/^\s*insert\b/i.test(earlier.sql) && typeof earlier.id === 'number' ? [[j, earlier.id] as const] : []));
    const idOf = s.parameters.map((value) => made.find(([, id]) => id === value)?.[0] ?? null);
    return { sql: s.sql, parameters: [...s.parameters], ...(idOf.some((x) => x !== null) ? { idOf } : {}) };
  });
}
