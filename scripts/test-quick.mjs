// `npm run test:quick`: the inner loop. The tap suite on SQLite, coverage off, without what
// needs a browser, a client generator, Prometheus, the bench or a second process (a server
// process, a script run as a user runs it, a kill, a second build): QUICK_LEFT_OUT, three tap
// jobs (the tests wait on I/O too), several files to a process (scripts/tap-shared.mjs).
// `npm test` stays the whole gate. Arguments go to tap, which runs each file in its own process.
import { spawnSync } from 'node:child_process';
import { runShared } from './tap-shared.mjs';

export const QUICK_LEFT_OUT = [
  'test/bench/**',
  'test/clients/**',
  'test/docs/**',
  'test/metrics/prometheus.test.ts',
  'test/contract/compat.test.ts',
  'test/import/import-cli.test.ts',
  'test/mcp/metering.test.ts',
  'test/robustness/+(concurrency|crash|host-load|idempotency|limits|load|multi-node|soak-smoke).test.ts',
  'test/scripts/!(comments|request-files).test.ts',
  'test/tracing/traces.test.ts',
  'test/webhooks/nodes.test.ts',
];

// The fuzz test sends 40 generated requests per operation here, 120 in `npm test`.
const env = { FUZZ_RUNS: '40', ...process.env };
delete env.TEST_DATABASE_URL;
if (process.argv.length > 2) process.exit(spawnSync('npx', ['tap', '--jobs=3', ...process.argv.slice(2)], { stdio: 'inherit', env }).status ?? 1);
process.exit(runShared(['--jobs=3', ...QUICK_LEFT_OUT.map((pattern) => `--exclude=${pattern}`)], env));
