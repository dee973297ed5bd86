// `npm run migrate [-- --contract]`: applies the migrations to the database named by
// DATABASE_URL and exits (docs/operating.md, "Migrations: expand and contract"): on an empty
// database all of them, else the expand ones; with --contract the contract ones too, refused
// while a node of an older version is alive (docs/operating.md, "Migrations: expand and
// contract"). `npm start` migrates as it does without --contract, under the same lock, so any
// number of them may run at once. A database whose newer migrations are not all expand ones is
// refused, untouched.
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.js';
import { openStore, StoreConfigError, StoreVersionError } from '../src/store/db.js';
import { OlderNodesAlive } from '../src/store/versions.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length > 1 || (args.length === 1 && args[0] !== '--contract')) fail('usage: npm run migrate [-- --contract]   (the database is DATABASE_URL)');
const contract = args[0] === '--contract';

/** The migrations recorded in the database, in order (none before its first migration). */
async function applied(databaseUrl: string, options: { migrate: boolean; contract?: boolean }): Promise<string[]> {
  const store = await openStore(databaseUrl, options);
  try {
    if (store.schema.waiting.length > 0) {
      console.log(`Contract migration(s) left for \`npm run migrate -- --contract\`, once no node older than this version runs: ${store.schema.waiting.join(', ')}.`);
    }
    const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
    if (!tables.some((table) => table.name === 'kysely_migration')) return [];
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
    return rows.map((row) => row.name);
  } finally {
    await store.close();
  }
}

/** DATABASE_URL without its password, for the message. */
const shown = (url: string) => url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@');

try {
  const config = loadConfig();
  const before = await applied(config.DATABASE_URL, { migrate: false });
  const after = await applied(config.DATABASE_URL, { migrate: true, contract });
  // Applied during this run: by it, or by a node or another run that took the lock first.
  const added = after.filter((name) => !before.includes(name));
  const where = shown(config.DATABASE_URL);
  console.log(
    added.length > 0
      ? `Applied ${added.length} migration(s) to ${where}: ${added.join(', ')}.`
      : `${where} is up to date (${after.length} migration(s), the last ${after.at(-1)}).`,
  );
} catch (err) {
  if (err instanceof ConfigError || err instanceof StoreConfigError || err instanceof StoreVersionError || err instanceof OlderNodesAlive) fail(err.message);
  fail(`migrate failed: ${err instanceof Error ? err.message : String(err)}`);
}
