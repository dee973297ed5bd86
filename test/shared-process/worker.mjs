// Runs test files one after another in this process, each as a test of its own. Started once
// per tap job by scripts/tap-shared.mjs, with the plan in TEST_SHARED_PLAN: the files, longest
// first. A worker takes the next file no other has taken (a directory made per file: one maker
// succeeds), so the workers end together however long each file runs. A file keeps what it had
// in a process of its own: its own copy of the project's modules (hooks.mjs), its own `t`
// (tap.mjs) with the configured timeout, its teardowns when its tests end, and process.argv[1]
// naming it. What it cannot keep to itself is what the process shares (shared-state.mjs):
// a file that changes it fails, and belongs in OWN_PROCESS, whose files are taken from the same
// list and run in a process of their own, started as tap starts one.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { settle, sharedState } from './shared-state.mjs';

const plan = JSON.parse(readFileSync(process.env.TEST_SHARED_PLAN, 'utf8'));
register('./hooks.mjs', import.meta.url, {
  data: { root: pathToFileURL(`${plan.root}/`).href, tap: new URL('./tap.mjs', import.meta.url).href },
});

const tests = new Map();
globalThis[Symbol.for('booking-api.test-of-file')] = tests;

/**
 * How long tap lets this process run before it stops it: a file's timeout fails a file that
 * hangs and the next one runs, but only tap can stop a process that never yields.
 */
const stopAfter = (ms) => t.setTimeout(ms > 0 ? ms + 30_000 : 0);

/** Takes file `index` for this worker, unless another worker has. */
function take(index) {
  try {
    mkdirSync(`${plan.taken}/${index}`);
    return true;
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw err;
  }
}

/** Runs a test file here, as a test of this process's root test: resolves when its tests have ended. */
function runHere(index, file, path) {
  return t.test(file, { timeout: plan.timeoutMs }, async (ft) => {
    // A file that sets its own timeout sets it for itself, as its root test would.
    const setTimeout = ft.setTimeout.bind(ft);
    ft.setTimeout = (ms) => {
      stopAfter(ms);
      return setTimeout(ms);
    };
    tests.set(String(index), ft);
    await import(`${pathToFileURL(path).href}?test-file=${index}`);
  });
}

await settle();
const script = process.argv[1];
for (const [index, { file, own }] of plan.files.entries()) {
  if (!take(index)) continue;
  const path = resolve(plan.root, file);
  const before = sharedState();
  const start = performance.now();
  stopAfter(plan.timeoutMs);
  process.argv[1] = path;
  if (own) await t.spawn(process.execPath, [...process.execArgv, path], { cwd: plan.root, timeout: plan.timeoutMs }, file);
  else await runHere(index, file, path);
  process.argv[1] = script;
  tests.delete(String(index));
  appendFileSync(plan.done, `${JSON.stringify({ file, ms: Math.round(performance.now() - start) })}\n`);
  const changed = before.changes();
  if (changed.length > 0) {
    t.fail(`${file} changed what the files of a process share: ${changed.join(', ')}. It belongs in OWN_PROCESS (scripts/tap-shared.mjs); this worker takes no more files.`);
    break;
  }
}
// What a file left running would keep this process alive: tap names it when this expires.
stopAfter(plan.timeoutMs);
