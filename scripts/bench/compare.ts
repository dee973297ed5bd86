import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Sample } from './measure.js';
import type { ServerCommand } from './servers.js';

// `--compare REV`: the API as built from another git revision, measured in the same rounds
// as this one, so that a change is judged against what it changed, on the same machine at
// the same moment, rather than against numbers recorded another day.

const run = (cwd: string, command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
};

/**
 * Checks REV out into a worktree under `work` and builds it with this checkout's
 * node_modules (a revision that needs other packages fails to build, and says so).
 */
export function prepareCompare(root: string, work: string, revision: string): { command: ServerCommand; dir: string; commit: string } {
  const commit = run(root, 'git', ['rev-parse', '--verify', `${revision}^{commit}`]);
  const dir = join(work, `compare-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'dist/server.js'))) {
    rmSync(dir, { recursive: true, force: true });
    run(root, 'git', ['worktree', 'prune']);
    run(root, 'git', ['worktree', 'add', '--detach', '--force', dir, commit]);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    run(dir, process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')]);
  }
  return { command: { kind: 'dist', args: [join(dir, 'dist/server.js')] }, dir, commit };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

/** The side-by-side table: each operation's median req/s and p99 for this build and REV's (both on SQLite). */
export function compareMarkdown(revision: string, commit: string, samples: Map<string, Sample[]>): string {
  const rows = [...samples].map(([id, list]) => {
    const now = median(list.map((s) => s.engines.sqlite.full.rps));
    const then = median(list.map((s) => s.compare?.rps ?? NaN));
    const p99Now = median(list.map((s) => s.engines.sqlite.full.p99));
    const p99Then = median(list.map((s) => s.compare?.p99 ?? NaN));
    return `| ${id} | ${now.toFixed(0)} | ${then.toFixed(0)} | ${(now / then).toFixed(2)}× | ${p99Now.toFixed(2)} | ${p99Then.toFixed(2)} |`;
  });
  return [
    `### Against ${revision} (${commit.slice(0, 12)}), on SQLite, measured in the same rounds`,
    '',
    '| operation | req/s now | req/s then | now / then | p99 ms now | p99 ms then |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}
