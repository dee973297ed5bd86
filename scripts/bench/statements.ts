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
  /** the statements themselves, which the bare SQL baseline replays (baseline-sql.ts) */
  sent: SentStatement[];
  /**
   * The statements of more calls, for an operation whose load varies its request (a pool of
   * codes or resources): the baseline replays them in turn, so that it reads and writes the
   * same rows the API is sent to, not one row kept hot.
   */
  variants: SentStatement[][];
}

/** How many varied calls of an operation are recorded for the baseline to replay. */
const VARIANTS = 32;

/**
 * Calls each operation once, in this process, on the app built over `databaseUrl`'s store,
 * and counts the statements each call runs (Kysely's log, per call through
 * AsyncLocalStorage, as test/store/round-trips.test.ts does): an exact count, which no load
 * on the machine changes. Without a delivery worker, whose claim a nudged write would
 * otherwise count as its own: a write's count holds recording its event, not delivering it. Writes do write: call this on a run copy, never on a cached set.
 */
export async function countOperationStatements(databaseUrl: string, secret: string, ops: Operation[], requests: Map<string, OpRequest>): Promise<Map<string, CountedCall>> {
  const store = await openStore(databaseUrl);
  try {
    const config = loadConfig(
      { DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent', DEMO_DATA: false, WEBHOOK_DELIVERY: false, RATE_LIMIT_MAX: 0, REBATE_LOOKUP_RATE_LIMIT_MAX: 0 },
      {},
    );
    const app = await buildApp(config, { store });
    try {
      // Booted first: a request made before runs from the boot's callbacks, outside the count.
      await app.ready();
      const counted = new Map<string, CountedCall>();
      for (const op of ops) {
        const { method, path, headers, body, vary } = requests.get(op.id)!;
        // Awaited inside: app.inject answers a lazy chain that sends nothing until awaited,
        // and awaited outside it would run outside the count.
        const { result, statements, sent } = await countStatements(
          async () => await app.inject({ method, url: path, headers, ...(body ? { payload: body } : {}) }),
          { keep: true },
        );
        const variants = [sent];
        if (vary) {
          const rng = createRng(`statements:${op.id}`);
          for (let i = 1; i < VARIANTS; i++) {
            const varied = { path, body, ...vary(rng) };
            const call = await countStatements(
              async () => await app.inject({ method, url: varied.path, headers, ...(varied.body ? { payload: varied.body } : {}) }),
              { keep: true },
            );
            if (call.result.statusCode === op.status) variants.push(call.sent);
          }
        }
        counted.set(op.id, { statements, status: result.statusCode, ok: result.statusCode === op.status, sent, variants });
      }
      return counted;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}
