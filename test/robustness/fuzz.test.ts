import t from 'tap';
import { contract } from '../contract-operations.js';
import { fuzzOperation, fuzzTarget } from './fuzz-property.js';

// Property-based requests generated from the contract, for every operation: whatever a
// caller sends, no 5xx, an answer the contract allows, a ResponseStatus on every error,
// and a refused request leaves every table as it was (see fuzz-property.ts).
// A fixed seed and a bounded count keep `npm test` reproducible and quick;
// `npm run fuzz -- --runs N [--seed S]` runs the same property for as long as wanted.

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

for (const op of contract().operations.values()) {
  t.test(`${op.operationId}: ${RUNS} generated requests keep the promises`, async (t) => {
    const target = await fuzzTarget(t, op);
    const stats = await fuzzOperation(target, { seed: SEED, numRuns: RUNS });
    t.equal(stats.requests, RUNS, 'every generated request was sent and checked');
    // The generator must keep reaching both sides of the operation, or the property
    // would be proving little: some requests are refused as invalid (4xx) and some
    // valid ones get past validation to the handler's own answers.
    const statuses = Object.keys(stats.byStatus).map(Number);
    t.ok(statuses.some((s) => s === 400), 'some requests are refused by validation');
    t.ok(statuses.some((s) => s !== 400 && s !== 401 && s !== 406 && s !== 415),
      `some requests reach the handler (statuses: ${statuses.join(', ')})`);
    t.ok(stats.valid > 0, 'valid requests were generated');
  });
}
