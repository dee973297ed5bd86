// `npm run reset [-- --postgres]`: starts the store of DATABASE_URL over, as a first
// `npm start` finds it: migrated, with the demo data set unless DEMO_DATA=false. On SQLite
// the database file and the JWT secret generated beside it are deleted, so tokens minted
// before stop working; a PostgreSQL database is touched only with --postgres. Stop the
// server first: a running server keeps the old SQLite file open and goes on serving it.
// What each case does: scripts/reset-store.ts.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.js';
import { StoreConfigError, StoreVersionError } from '../src/store/db.js';
import { ResetRefused, resetStore } from './reset-store.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

let postgres: boolean | undefined;
try {
  ({ postgres } = parseArgs({ options: { postgres: { type: 'boolean' } }, strict: true }).values);
} catch (err) {
  fail(`${(err as Error).message}\nusage: npm run reset [-- --postgres]   (the store is DATABASE_URL)`);
}

try {
  for (const line of await resetStore(loadConfig(), { postgres })) console.log(line);
} catch (err) {
  if (err instanceof ConfigError || err instanceof StoreConfigError || err instanceof StoreVersionError || err instanceof ResetRefused) {
    fail(err.message);
  }
  fail(`reset failed: ${err instanceof Error ? err.message : String(err)}`);
}
