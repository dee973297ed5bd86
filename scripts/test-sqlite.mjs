// The SQLite half of `npm test`: the tap suite on SQLite. When the PostgreSQL half is to follow
// (TEST_POSTGRES_URL is set), the bench's smoke test is left to it: there it measures both
// engines, SQLite included, so running it here too would only measure SQLite twice.
import { runTap } from './tap-run.mjs';

const args = process.argv.length > 2 ? process.argv.slice(2) : process.env.TEST_POSTGRES_URL ? ['--exclude=test/bench/smoke.test.ts'] : [];
process.exit(runTap(args));
