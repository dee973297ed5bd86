// The PostgreSQL half of `npm test`: the whole tap suite again, each test on its own
// database of the server TEST_POSTGRES_URL names (handed to the tests as TEST_DATABASE_URL,
// which test/test-store.ts reads). Without it, says so: the suite ran on SQLite only.
import { spawnSync } from 'node:child_process';

const server = process.env.TEST_POSTGRES_URL;
if (!server) {
  console.log('TEST_POSTGRES_URL is not set: the suite ran on SQLite only (README, "Tests", says how to add PostgreSQL).');
  process.exit(0);
}
console.log(`The suite again, on PostgreSQL at ${new URL(server).host} ...`);
const tap = spawnSync('npx', ['tap', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: server } });
process.exit(tap.status ?? 1);
