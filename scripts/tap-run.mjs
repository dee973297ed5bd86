// How both halves of `npm test` run tap (scripts/test-sqlite.mjs, scripts/test-postgres.mjs):
// the suite, several files to a process (scripts/tap-shared.mjs), then each file of RUN_ALONE
// by itself, then the list of what was skipped for a missing program (test/needs.ts), so that
// a skip is not lost in the output above it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runShared } from './tap-shared.mjs';

/** Test files that take every core: another file beside them would be slowed, and they by it. */
export const RUN_ALONE = ['test/robustness/host-load.test.ts'];

/** tap on `args`, then each file of RUN_ALONE alone (unless `args` name files of their own), then the skips: the exit status. */
export function runTap(args, env = process.env) {
  const dir = mkdtempSync(join(tmpdir(), 'test-skips-'));
  const skips = join(dir, 'skips');
  const tapEnv = { ...env, TEST_SKIPS_FILE: skips };
  const tap = (more) => spawnSync('npx', ['tap', ...more], { stdio: 'inherit', env: tapEnv }).status ?? 1;
  try {
    if (args.some((arg) => !arg.startsWith('-'))) return tap(args);
    const rest = runShared([...args, ...RUN_ALONE.map((file) => `--exclude=${file}`)], tapEnv);
    return rest !== 0 ? rest : tap(['--jobs=1', ...RUN_ALONE]);
  } finally {
    const lines = existsSync(skips) ? [...new Set(readFileSync(skips, 'utf8').trim().split('\n'))] : [];
    if (lines.length > 0) console.log(`Skipped for want of a program (test/needs.ts):\n${lines.map((line) => `  ${line}`).join('\n')}`);
    rmSync(dir, { recursive: true, force: true });
  }
}
