import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { NODE_FLAGS } from '../node-flags.mjs';
import { forgetPostgresMigrations } from './postgres.js';
import { listeningPort } from './proc.js';

// The processes under test: the API server (the built dist/server.js that `npm start`
// runs, or src/server.ts under tsx) and the baselines, each its own child, each with the V8
// flags of a serving process on its node command line (NODE_FLAGS, as `npm start` gives them).

export interface ServerCommand {
  kind: 'dist' | 'tsx';
  /** node arguments that start the server */
  args: string[];
  note?: string;
}

export interface Child {
  pid: number;
  url: string;
  /** spawn → first answered request, ms */
  startupMs: number;
  stop(): Promise<void>;
}

/** Every child still running; killed if the bench itself exits early (an error, Ctrl-C). */
const running = new Set<ChildProcess>();
const killAll = () => running.forEach((child) => child.kill('SIGKILL'));
process.on('exit', killAll);

/** Clean-ups (dropping the PostgreSQL databases) that an interrupted run still does, for at most 10 s. */
const cleanups = new Set<() => Promise<void>>();
export function cleanUpIfInterrupted(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    void Promise.race([Promise.allSettled([...cleanups].map((cleanup) => cleanup())), sleep(10_000)]).finally(() => process.exit(130));
  });
}

const newest = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
const modified = (file: string) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

const tsc = (root: string, dir: string) => spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')], { cwd: dir, encoding: 'utf8' });

/** The built server, rebuilding dist/ when older than src/ as `npm start` does; tsx when asked, or when nothing builds. */
export function serverCommand(root: string, prefer: 'dist' | 'tsx'): ServerCommand {
  const tsx: ServerCommand = { kind: 'tsx', args: ['--import', 'tsx', join(root, 'src/server.ts')] };
  const built = join(root, 'dist/server.js');
  const dist: ServerCommand = { kind: 'dist', args: [built] };
  if (prefer === 'tsx') return tsx;
  if (modified(built) >= Math.max(newest(join(root, 'src')), modified(join(root, 'tsconfig.json')))) return dist;
  console.error('bench: building dist/ (npm run build) ...');
  const before = Date.now();
  const build = tsc(root, root);
  if (build.status === 0) return dist;
  const errors = `${build.stdout}${build.stderr}`.trim();
  // tsc still emits on type errors (noEmitOnError is off): run that JavaScript, and say so.
  if (modified(built) >= before - 1000) return { ...dist, note: `npm run build reported type errors; dist/ was emitted anyway and ran: ${errors}`.slice(0, 2000) };
  return { ...tsx, note: `npm run build failed, so the server ran under tsx: ${errors}`.slice(0, 2000) };
}

/**
 * `--compare REV`: REV checked out into a worktree under `work` and built with this checkout's
 * node_modules (a revision that needs other packages fails to build, and says so), to be
 * measured in the same rounds as this build: a change is judged against what it changed, on
 * the same machine at the same moment, not against figures recorded another day.
 */
export function prepareCompare(root: string, work: string, revision: string): { command: ServerCommand; dir: string; commit: string } {
  const check = (result: SpawnSyncReturns<string>, what: string) => {
    if (result.status !== 0) throw new Error(`${what} failed:\n${result.stdout}${result.stderr}`);
    return result.stdout.trim();
  };
  const git = (...args: string[]) => check(spawnSync('git', args, { cwd: root, encoding: 'utf8' }), `git ${args.join(' ')}`);
  const commit = git('rev-parse', '--verify', `${revision}^{commit}`);
  const dir = join(work, `compare-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'dist/server.js'))) {
    rmSync(dir, { recursive: true, force: true });
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', '--force', dir, commit);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    check(tsc(root, dir), `the build of ${revision} in ${dir}`);
  }
  return { command: { kind: 'dist', args: [join(dir, 'dist/server.js')] }, dir, commit };
}

/**
 * Makes a copy of the data (an SQLite file: URL or a PostgreSQL one) readable by the compared
 * build: the migrations it does not know (added after it) are forgotten in the copy's migration
 * table, so that it starts on the same rows rather than refusing a database a newer version
 * migrated. Sound while those migrations only add what the older build never reads (columns,
 * indexes, tables); the run's log names them. Answers their names.
 */
export async function forgetNewerMigrations(databaseUrl: string, compareDir: string): Promise<string[]> {
  const known = readdirSync(join(compareDir, 'src/store/migrations'))
    .filter((name) => /^\d{4}_\w+\.ts$/.test(name))
    .map((name) => name.slice(0, -3));
  if (!databaseUrl.startsWith('file:')) return forgetPostgresMigrations(databaseUrl, known);
  const db = new Database(databaseUrl.slice('file:'.length));
  try {
    const recorded = (db.prepare('select name from kysely_migration').all() as Array<{ name: string }>).map((row) => row.name);
    const newer = recorded.filter((name) => !known.includes(name));
    const forget = db.prepare('delete from kysely_migration where name = ?');
    for (const name of newer) forget.run(name);
    return newer;
  } finally {
    db.close();
  }
}

/** Spawns `node <NODE_FLAGS> <args>` and waits until it listens and answers `probePath` with a 2xx/4xx. */
async function startChild(root: string, args: string[], env: Record<string, string>, probePath: string): Promise<Child> {
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-20_000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  running.add(child);
  let exited: number | null | undefined;
  child.on('exit', (code) => { exited = code; running.delete(child); });
  const fail = (why: string) => { child.kill('SIGKILL'); return new Error(`${args.join(' ')}: ${why}\n${output}`); };
  let url: string | undefined;
  while (performance.now() - started < 60_000) {
    if (exited !== undefined) throw fail(`exited with ${exited} before answering`);
    const port = url ? undefined : listeningPort(child.pid!);
    if (port) url = `http://127.0.0.1:${port}`;
    const answer = url ? await fetch(url + probePath).catch(() => undefined) : undefined;
    if (answer && answer.status < 500) {
      await answer.arrayBuffer();
      return { pid: child.pid!, url: url!, startupMs: performance.now() - started, stop: () => stop(child) };
    }
    await sleep(5);
  }
  throw fail('did not answer within 60 s');
}

/** SIGTERM (a graceful close, which also writes a --cpu-prof profile), SIGKILL after 15 s. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

/**
 * The API server on `databaseUrl` (an SQLite file or a PostgreSQL database) with the bench's
 * settings: PORT 0, warn logs, no rate limits nor load shedding, no demo data, and no webhook deliveries (a
 * server delivers to the endpoints its data names, and a data file's are off this machine);
 * `env` overrides them (the webhook measurement turns deliveries on, to its own receiver).
 */
export function startApi(root: string, command: ServerCommand, databaseUrl: string, secret: string, { nodeArgs = [], env = {} }: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<Child> {
  return startChild(root, [...nodeArgs, ...command.args], {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production',
    RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0', DEMO_DATA: 'false', WEBHOOK_DELIVERY: 'false', AUTH_JWT_SECRET: secret,
    SHED_QUEUE_WAIT_MS: '0',
    ...env,
  }, '/categories?Take=1');
}

/** A baseline, `scripts/bench/<script>` under tsx with `args`, which answers /__ready once it serves. */
export function startBaseline(root: string, script: 'baselines.ts' | 'baseline-sql.ts', args: string[]): Promise<Child> {
  return startChild(root, ['--import', 'tsx', join(root, 'scripts/bench', script), ...args], {}, '/__ready');
}
