// The tap suite with several test files to a process (docs/testing.md, "Where the time of a test
// file goes"): a process of its own costs a file about 2 s of CPU before its first test (tap,
// tsx and the packages loading), more than most files' tests take. tap runs one worker per job
// instead (test/shared-process/worker.mjs), and the workers take the files from one list, so
// the packages load once per worker. scripts/test-quick.mjs and both halves of `npm test`
// (scripts/tap-run.mjs) run the suite so; tap on named files runs each in its own process.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Test files that change what the files of a process share: each gets a process of its own. */
export const OWN_PROCESS = [
  // Both replace node:dns's lookups for the rest of their process.
  'test/robustness/fuzz.test.ts',
  'test/handlers/webhooks-targets.test.ts',
  // Starts OpenTelemetry's SDK, which patches node:http for the rest of its process.
  'test/tracing/traces.test.ts',
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// In .tap/, which git ignores: the workers' entry files, and how long each file took last time,
// so that the longest start first and the workers end together.
const folder = join(root, '.tap', 'shared-process');
const durationsFile = join(folder, 'durations.json');

const config = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).tap ?? {};

/** The value of `--name=value` or `--name value` in args, if there. */
function option(args, name) {
  const at = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  return args[at].includes('=') ? args[at].slice(name.length + 3) : args[at + 1];
}

function readJson(file, otherwise) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return otherwise;
  }
}

/**
 * tap on the files that `args` (tap's options, no file names) select, several files to a
 * process: the exit status. A file that no worker ran to its end is named, and fails the run.
 */
export function runShared(args, env = process.env) {
  const listed = spawnSync('npx', ['tap', 'list', ...args], { cwd: root, env, encoding: 'utf8' });
  if (listed.status !== 0) {
    process.stderr.write(listed.stderr);
    return listed.status ?? 1;
  }
  const durations = readJson(durationsFile, {});
  // The longest first, a file not timed yet counting as long: none should start late and end last.
  const files = listed.stdout.split('\n').filter(Boolean).sort((a, b) => (durations[b] ?? Infinity) - (durations[a] ?? Infinity));
  const workers = Math.min(Math.max(1, Number(option(args, 'jobs') ?? config.jobs ?? 1)), files.length);

  mkdirSync(folder, { recursive: true });
  const run = mkdtempSync(join(folder, 'run-'));
  const plan = {
    root,
    files: files.map((file) => ({ file, own: OWN_PROCESS.includes(file) })),
    timeoutMs: Number(option(args, 'timeout') ?? config.timeout ?? 30) * 1000,
    taken: join(run, 'taken'),
    done: join(run, 'done.jsonl'),
  };
  mkdirSync(plan.taken);
  writeFileSync(join(run, 'plan.json'), JSON.stringify(plan));
  const entries = [];
  for (let k = 1; k <= workers; k++) {
    const entry = join(folder, `worker-${k}.mjs`);
    writeFileSync(entry, "import '../../test/shared-process/worker.mjs';\n");
    entries.push(entry.slice(root.length + 1));
  }
  try {
    // The files are the workers' to take: tap is given its options and the workers' entries.
    const options = args.filter((arg, i) => !arg.startsWith('--exclude') && args[i - 1] !== '--exclude');
    const tap = spawnSync('npx', ['tap', ...options, ...entries], {
      cwd: root,
      stdio: 'inherit',
      env: { ...env, TEST_SHARED_PLAN: join(run, 'plan.json') },
    });
    const done = existsSync(plan.done) ? readFileSync(plan.done, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
    for (const { file, ms } of done) durations[file] = ms;
    writeFileSync(durationsFile, `${JSON.stringify(durations, null, 1)}\n`);
    const finished = new Set(done.map(({ file }) => file));
    const missed = files.filter((file) => !finished.has(file));
    if (missed.length > 0) {
      console.log(`Not run to their end, their worker having stopped first:\n${missed.map((file) => `  ${file}`).join('\n')}`);
      return 1;
    }
    return tap.status ?? 1;
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
}
