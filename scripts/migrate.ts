// `npm run migrate`: applies the migrations to the database named by DATABASE_URL and exits
// (README, "Set-up"). Deployments run it once before starting nodes; `npm start` still
// migrates, and both take the same lock, so any number of them may run at once. Prints what
// it applied; a database that a newer version migrated is refused, untouched.
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/config.js';
import { openStore, StoreConfigError, StoreVersionError } from '../src/store/db.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

if (process.argv.length > 2) fail('usage: npm run migrate   (the database is DATABASE_URL)');

/** The migrations recorded in the database, in order (none before its first migration). */
async function applied(databaseUrl: string, options: { migrate: boolean }): Promise<string[]> {
  const store = await openStore(databaseUrl, options);
  try {
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
  const after = await applied(config.DATABASE_URL, { migrate: true });
  // Applied during this run: by it, or by a node or another run that took the lock first.
  const added = after.filter((name) => !before.includes(name));
  const where = shown(config.DATABASE_URL);
  console.log(
    added.length > 0
      ? `Applied ${added.length} migration(s) to ${where}: ${added.join(', ')}.`
      : `${where} is up to date (${after.length} migration(s), the last ${after.at(-1)}).`,
  );
} catch (err) {
  if (err instanceof ConfigError || err instanceof StoreConfigError || err instanceof StoreVersionError) fail(err.message);
  fail(`migrate failed: ${err instanceof Error ? err.message : String(err)}`);
}
