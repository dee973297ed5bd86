// The long fuzz run: `npm run fuzz -- --runs 2000 [--seed S] [--op OperationId] [--path P]`.
// The same property as test/robustness/fuzz.test.ts (no 5xx, answers the contract allows,
// a ResponseStatus on every error, refused requests change nothing), for every operation
// of the contract, with as many requests per operation as --runs says. A failure prints
// fast-check's seed, path and counterexample; rerun with --seed and --path to replay it.
import { parseArgs } from 'node:util';
import { contract } from '../test/contract-operations.js';
import { fuzzOperation, fuzzTarget } from '../test/robustness/fuzz-property.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '500' },
    seed: { type: 'string' },
    op: { type: 'string', multiple: true },
    path: { type: 'string' },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fuzz -- --runs N [--seed S] [--op OperationId ...] [--path P]');
  process.exit(2);
}

const operations = [...contract().operations.values()].filter((op) => !values.op || values.op.includes(op.operationId));
console.log(`fuzz: seed ${seed}, ${runs} requests per operation, ${operations.length} operation(s)`);
let failures = 0;

/** fast-check 4 keeps the property's own error as the `cause` of its report. */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `Caused by: ${cause.message}` : '';
}

for (const op of operations) {
  const teardowns: Array<() => unknown> = [];
  const started = Date.now();
  try {
    const target = await fuzzTarget({ teardown: (fn) => teardowns.push(fn) }, op);
    try {
      await fuzzOperation(target, { seed, numRuns: runs, path: values.path });
    } finally {
      const s = target.stats;
      const statuses = Object.entries(s.byStatus).map(([code, n]) => `${code}×${n}`).join(' ');
      console.log(`${op.operationId}: ${s.requests} requests in ${Date.now() - started} ms (valid ${s.validOk}/${s.valid} answered 2xx) ${statuses}`);
    }
  } catch (err) {
    failures++;
    console.error(`\n✗ ${op.operationId} (seed ${seed})\n${(err as Error).message}\n${causeOf(err)}\n`);
  } finally {
    for (const fn of teardowns.reverse()) await fn();
  }
}
console.log(failures === 0 ? 'fuzz: no failures' : `fuzz: ${failures} operation(s) failed`);
process.exit(failures === 0 ? 0 : 1);
