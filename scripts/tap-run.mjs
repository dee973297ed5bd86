// How both halves of `npm test` run tap (scripts/test-sqlite.mjs, scripts/test-postgres.mjs):
// the suite, then each file of RUN_ALONE by itself.
import { spawnSync } from 'node:child_process';

/** Test files that take every core: another file beside them would be slowed, and they by it. */
export const RUN_ALONE = ['test/robustness/host-load.test.ts'];

/** tap on `args`, then each file of RUN_ALONE alone (unless `args` name files of their own): the exit status. */
export function runTap(args, env = process.env) {
  const tap = (more) => spawnSync('npx', ['tap', ...more], { stdio: 'inherit', env }).status ?? 1;
  if (args.some((arg) => !arg.startsWith('-'))) return tap(args);
  const rest = tap([...args, ...RUN_ALONE.map((file) => `--exclude=${file}`)]);
  return rest !== 0 ? rest : tap(['--jobs=1', ...RUN_ALONE]);
}
