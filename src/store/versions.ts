import { randomUUID } from 'node:crypto';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { LAST_MIGRATION, migrations, type KindedMigration } from './migrations/index.js';
import { BOOKKEEPING_TABLES, type Database } from './schema.js';
import { isPostgres, nowMs } from './statements.js';

/**
 * Schema versions and nodes of two versions (docs/operating.md, "Migrations: expand and contract"). Every migration
 * is an expand or a contract one, recorded in `migration_kinds` as it is applied; a node's
 * version is the last migration it knows, recorded with a heartbeat in `store_nodes`. Both
 * tables are the store's own bookkeeping, made here, not by a migration, since the first
 * migration's kind must be recorded too.
 */

/** The database holds migrations this code does not know, and one of them is not an expand one. */
export class StoreVersionError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `The database was migrated by a newer version of this service: unknown migration(s) ` +
        `${unknownMigrations.map((name) => `"${name}"`).join(', ')}, not all of them expand migrations ` +
        `(docs/operating.md). Upgrade the service or use another DATABASE_URL.`,
    );
    this.name = 'StoreVersionError';
  }
}

/** `--contract` while a node of an older version beats: what it removes, that node may still read. */
export class OlderNodesAlive extends Error {
  constructor(readonly nodes: Array<{ id: string; version: string }>) {
    super(
      `Refused: ${nodes.length} node(s) of an older version are alive, and a contract migration may remove what they read: ` +
        `${nodes.map((node) => `${node.id} (version ${node.version})`).join(', ')}. Replace them first.`,
    );
    this.name = 'OlderNodesAlive';
  }
}

/** What opening the store found: migrations it applied, newer ones it runs beside, contract ones left. */
export interface SchemaState {
  applied: string[];
  /** expand migrations of a newer version: this node is older, and serves beside it */
  newer: string[];
  /** contract migrations this code knows but left for `npm run migrate -- --contract` */
  waiting: string[];
  /** this node's id in `store_nodes`, when it was registered as it opened the store */
  node?: string;
}

/** Migrations by name with their kinds: this code's (migrations/index.ts), or a test's. */
export type KnownMigrations = Readonly<Record<string, KindedMigration>>;

/** The version of code that knows `known`: its last migration. */
const versionOf = (known: KnownMigrations) => Object.keys(known).at(-1) ?? LAST_MIGRATION;

/** A node beats every HEARTBEAT_MS and is alive for NODE_ALIVE_MS after its last beat, by the database's clock. */
export const HEARTBEAT_MS = 5000;
export const NODE_ALIVE_MS = 15_000;

async function ensureBookkeeping(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('migration_kinds')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('expand', 'contract')`))
    .execute();
  await db.schema
    .createTable('store_nodes')
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('beat_at', 'bigint', (c) => c.notNull())
    .execute();
}

/** Drops the bookkeeping tables, once every migration is reverted (`npm run reset`). */
export async function dropBookkeeping(db: Kysely<Database>): Promise<void> {
  for (const table of BOOKKEEPING_TABLES) await db.schema.dropTable(table).ifExists().execute();
}

async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === 'kysely_migration')) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** Records the kind of each migration this code knows that is applied, once. */
async function recordKinds(db: Kysely<Database>, known: KnownMigrations, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await db
    .insertInto('migration_kinds')
    .values(names.map((name) => ({ name, kind: known[name].kind })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * A migration as the migrator runs it: on PostgreSQL an expand one gives up on a table lock
 * it cannot take within EXPAND_LOCK_TIMEOUT rather than queue the requests behind it (for its
 * transaction, or around it when it runs in none), and its kind is recorded with it.
 */
export const EXPAND_LOCK_TIMEOUT = '5s';
function recorded(known: KnownMigrations, name: string): Migration {
  const migration = known[name];
  return {
    async up(db) {
      const limited = migration.kind === 'expand' && isPostgres(db);
      const local = migration.transaction !== false;
      if (limited) await sql`select set_config('lock_timeout', ${EXPAND_LOCK_TIMEOUT}, ${local})`.execute(db);
      try {
        await migration.up(db);
      } finally {
        if (limited && !local) await sql`reset lock_timeout`.execute(db);
      }
      await recordKinds(db as Kysely<Database>, known, [name]);
    },
  };
}

/**
 * Brings the schema to what this code needs: an empty store gets every migration; otherwise
 * the pending expand migrations (before a contract one that waits, if need be), and with
 * `contract` the rest. A database with migrations this code does not know runs no migrator:
 * its own must all be applied, and the others all expand ones; else StoreVersionError.
 * With `register`, a serving node is then recorded in `store_nodes` (beatNode keeps it alive).
 */
export async function migrate(
  db: Kysely<Database>,
  options: { contract?: boolean; known?: KnownMigrations; register?: boolean } = {},
): Promise<SchemaState> {
  const state = await migrateOnly(db, options);
  // Recorded under the same lock: `--contract` either sees this node, or finished first and
  // migrateOnly saw its contract migration and refused.
  if (options.register) state.node = await recordNode(db, versionOf(options.known ?? migrations));
  return state;
}

async function migrateOnly(db: Kysely<Database>, options: { contract?: boolean; known?: KnownMigrations }): Promise<SchemaState> {
  const known = options.known ?? migrations;
  await ensureBookkeeping(db);
  const applied = await appliedMigrations(db);
  const unknown = applied.filter((name) => !Object.hasOwn(known, name));
  if (unknown.length > 0) return olderNode(db, known, applied, unknown);
  await recordKinds(db, known, applied);
  // Checked under the migrations' lock, which a starting node of any version holds as it opens the store.
  if (options.contract) {
    const older = await olderNodesAlive(db, versionOf(known));
    if (older.length > 0) throw new OlderNodesAlive(older);
  }
  const pending = Object.keys(known).filter((name) => !applied.includes(name));
  const run = applied.length === 0 || options.contract ? pending : pending.filter((name) => known[name].kind === 'expand');
  // One at a time, each in a transaction of its own unless it runs in none. Kysely's migrator
  // holds its session-level advisory lock across nodes for each run (PostgresAdapter, 0.28).
  const done = [...applied];
  for (const name of run) {
    const provided = Object.fromEntries([...done, name].map((each) => [each, recorded(known, each)]));
    const disableTransactions = known[name].transaction === false;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => provided }, allowUnorderedMigrations: true, disableTransactions });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    done.push(name);
  }
  return { applied: run, newer: [], waiting: pending.filter((name) => !run.includes(name)) };
}

async function olderNode(db: Kysely<Database>, known: KnownMigrations, applied: string[], unknown: string[]): Promise<SchemaState> {
  const missing = Object.keys(known).filter((name) => !applied.includes(name));
  if (missing.length > 0) {
    throw new Error(`The database lacks migration(s) ${missing.join(', ')} of this version, yet holds newer ones (${unknown.join(', ')}).`);
  }
  const kinds = await db.selectFrom('migration_kinds').select(['name', 'kind']).where('name', 'in', unknown).execute();
  const expand = new Set(kinds.filter((row) => row.kind === 'expand').map((row) => row.name));
  // A migration without a recorded kind was applied by a version that recorded none: unknown, so refused.
  const refused = unknown.filter((name) => !expand.has(name));
  if (refused.length > 0) throw new StoreVersionError(refused);
  return { applied: [], newer: unknown, waiting: [] };
}

/** The nodes alive now whose version is older than `version` (they know fewer migrations). */
export async function olderNodesAlive(db: Kysely<Database>, version = LAST_MIGRATION): Promise<Array<{ id: string; version: string }>> {
  return db
    .selectFrom('store_nodes')
    .select(['id', 'version'])
    .where('version', '<', version)
    .where('beat_at', '>', sql<number>`${nowMs(db)} - ${NODE_ALIVE_MS}`)
    .orderBy('id')
    .execute();
}

/** Records a node of `version` in `store_nodes`, deleting the rows of nodes that died; its id. */
async function recordNode(db: Kysely<Database>, version: string): Promise<string> {
  const id = randomUUID();
  await db.deleteFrom('store_nodes').where('beat_at', '<', sql<number>`${nowMs(db)} - ${NODE_ALIVE_MS}`).execute();
  await db.insertInto('store_nodes').values({ id, version, started_at: nowMs(db), beat_at: nowMs(db) }).execute();
  return id;
}

/** The node `id` beats every HEARTBEAT_MS until `stop`, which deletes its row. */
export function beatNode(db: Kysely<Database>, id: string, onError: (err: unknown) => void): { stop(): Promise<void> } {
  const timer = setInterval(() => {
    db.updateTable('store_nodes').set({ beat_at: nowMs(db) }).where('id', '=', id).execute().catch(onError);
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await db.deleteFrom('store_nodes').where('id', '=', id).execute();
    },
  };
}
