// The PostgreSQL half of `npm test`: the tap suite again, each test on its own database of
// the server TEST_POSTGRES_URL names (handed to the tests as TEST_DATABASE_URL, which
// test/test-store.ts reads). Without it, this half is skipped and says so; under CI=true it
// fails instead, since .ci/run starts a PostgreSQL and names it (test/needs.ts, the same rule).
// Tests whose subject no engine changes ran in the SQLite half and are not run again
// (ENGINE_FREE): the contract's text, the domain's rules, the files a request runs, the layers, comments,
// the docs and the generated clients, and what is settled before a request reaches the
// store: tokens and their cache, request ids, proxies, the MCP tool list, the log format.
import { runTap } from './tap-run.mjs';

export const ENGINE_FREE = [
  'test/contract/!(examples).test.ts',
  'test/domain/**',
  'test/scripts/request-files.test.ts',
  'test/scripts/comments.test.ts',
  'test/scripts/layers.test.ts',
  'test/docs/**',
  'test/clients/**',
  'test/http/+(jwks|request-id|trust-proxy|verified-tokens).test.ts',
  'test/mcp/tools.test.ts',
  'test/scripts/+(log-format|token-npm|start).test.ts',
];

const server = process.env.TEST_POSTGRES_URL;
if (!server) {
  if (process.env.CI === 'true') {
    console.error("TEST_POSTGRES_URL is not set, and under CI=true the PostgreSQL half must run: .ci/run installs Debian's postgresql, starts it on 127.0.0.1 and sets TEST_POSTGRES_URL.");
    process.exit(1);
  }
  console.log('Skipped: the PostgreSQL half, since TEST_POSTGRES_URL is not set; the suite ran on SQLite only (docs/testing.md, "The PostgreSQL half", says how to add PostgreSQL).');
  process.exit(0);
}
console.log(`The suite again, on PostgreSQL at ${new URL(server).host} ...`);
const args = process.argv.length > 2 ? process.argv.slice(2) : ENGINE_FREE.map((pattern) => `--exclude=${pattern}`);
process.exit(runTap(args, { ...process.env, TEST_DATABASE_URL: server }));
