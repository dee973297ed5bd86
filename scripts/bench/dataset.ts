import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { openStore } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { Database } from '../../src/store/schema.js';
import { createBulk, type BenchMeta, type GenContext } from './bulk.js';
import { generateBookings, generateCompanies, generateCustomers, generateReference } from './generate-core.js';
import { generateMcpUsage, generatePrintouts, generateRebateCodes, generateTemplates } from './generate-codes.js';
import { createRng } from './rng.js';

/** Bump when the generator changes what it writes, so cached files are rebuilt. */
const GENERATOR_VERSION = 1;
/** The share of every company-owned total that the measured ("hot") company holds. */
export const HOT_SHARE = 0.05;

export interface Dataset {
  file: string;
  meta: BenchMeta;
  cached: boolean;
}

/**
 * The data set for (scale, seed), generated once into `workDir` and reused. The key also
 * covers the generator version and the migrations, so a schema change rebuilds it. The file
 * is written under a temporary name and renamed when complete: an interrupted run leaves
 * no half-built cache.
 */
export async function ensureDataset(workDir: string, scale: number, seed: string): Promise<Dataset> {
  const key = createHash('sha256').update(JSON.stringify([GENERATOR_VERSION, Object.keys(migrations)])).digest('hex').slice(0, 8);
  const base = join(workDir, `data-s${scale}-seed${seed}-${key}`);
  const file = `${base}.sqlite`;
  if (existsSync(file) && existsSync(`${base}.json`)) {
    return { file, meta: JSON.parse(readFileSync(`${base}.json`, 'utf8')) as BenchMeta, cached: true };
  }
  mkdirSync(workDir, { recursive: true });
  const partial = `${base}.partial.sqlite`;
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
  const started = performance.now();
  // openStore creates the file and runs every migration: the bench measures the real schema.
  await (await openStore(`file:${partial}`)).close();
  const sqlite = new SQLite(partial);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    // A bulk load: no journal and no fsync; the file is only used once it is complete.
    sqlite.pragma('journal_mode = DELETE');
    sqlite.pragma('synchronous = OFF');
    sqlite.pragma('cache_size = -262144');
    sqlite.pragma('foreign_keys = OFF');
    sqlite.pragma('temp_store = MEMORY');
    const meta = await generateInto(db, scale, seed, Date.now());
    // Checked once at the end rather than row by row (twice as fast to load).
    const problems = sqlite.pragma('foreign_key_check') as unknown[];
    if (problems.length > 0) throw new Error(`generated data breaks ${problems.length} foreign key(s)`);
    meta.generationMs = Math.round(performance.now() - started);
    await db.destroy();
    writeFileSync(`${base}.json`, `${JSON.stringify(meta, null, 2)}\n`);
    renameSync(partial, file);
    return { file, meta, cached: false };
  } finally {
    if (sqlite.open) sqlite.close();
  }
}

/**
 * Writes the data set for (scale, seed) into a migrated, empty database of either engine,
 * one transaction per step. `now` anchors every date, so a second engine loaded with the
 * first one's `generatedAt` holds the same rows, byte for byte.
 */
export async function generateInto(db: Kysely<Database>, scale: number, seed: string, now: number): Promise<BenchMeta> {
  const ctx = context(scale, seed, now);
  const steps = [generateReference, generateCompanies, generateCustomers, generateBookings, generateRebateCodes, generatePrintouts, generateTemplates, generateMcpUsage];
  for (const step of steps) {
    await db.transaction().execute(async (trx) => {
      ctx.bulk = createBulk(trx);
      await step(ctx);
      await ctx.bulk.flush();
    });
  }
  return ctx.meta;
}

function context(scale: number, seed: string, now: number): GenContext {
  const rng = createRng(`bench:${seed}`);
  const count = (full: number) => Math.max(1, Math.round(full * scale));
  const companies = Array.from({ length: count(1000) }, () => rng.uuid());
  const hot = companies[0];
  const others = companies.length - 1;
  return {
    rng,
    bulk: { insert: () => Promise.reject(new Error('no step is running')), flush: async () => {} },
    now,
    count,
    companies,
    companyIndex: new Map(companies.map((c, i) => [c, i])),
    hot,
    owner: () => (others === 0 || rng.chance(HOT_SHARE) ? hot : companies[1 + Math.floor(rng.next() * others)]),
    services: new Map(),
    customers: new Map(),
    resources: new Map(),
    meta: {
      scale,
      seed,
      generatedAt: new Date(now).toISOString(),
      generationMs: 0,
      counts: { companies: companies.length },
      hotCompanyId: hot,
      hot: { printouts: 0, mcpRows: 0, services: [], blockedResources: [], lookupCodes: [], valueCardIds: [] },
    },
  };
}
