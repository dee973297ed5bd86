import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listeningPort } from './proc.js';

// The processes under test: the API server (the built dist/server.js that `npm start`
// runs, or src/server.ts under tsx) and the two bare baselines, each its own child.

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
  logs(): string;
  stop(): Promise<void>;
}

/** Every child still running; killed if the bench itself exits early (an error, Ctrl-C). */
const running = new Set<ChildProcess>();
const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
};
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
    const deadline = sleep(10_000);
    void Promise.race([Promise.allSettled([...cleanups].map((cleanup) => cleanup())), deadline]).finally(() => process.exit(130));
  });
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** The built server when it builds (rebuilding dist/ when older than src/, as `npm start` does); else tsx. */
export function serverCommand(root: string, prefer: 'dist' | 'tsx'): ServerCommand {
  const tsx: ServerCommand = { kind: 'tsx', args: ['--import', 'tsx', join(root, 'src/server.ts')] };
  if (prefer === 'tsx') return tsx;
  const built = join(root, 'dist/server.js');
  let builtAt = 0;
  try { builtAt = statSync(built).mtimeMs; } catch { /* not built */ }
  if (builtAt < Math.max(newest(join(root, 'src')), statSync(join(root, 'tsconfig.json')).mtimeMs)) {
    console.error('bench: building dist/ (npm run build) ...');
    const before = Date.now();
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, encoding: 'utf8' });
    if (tsc.status !== 0) {
      const errors = `${tsc.stdout}${tsc.stderr}`.trim();
      // tsc still emits on type errors (noEmitOnError is off): run that JavaScript, and say so.
      let emitted = false;
      try { emitted = statSync(built).mtimeMs >= before - 1000; } catch { /* nothing emitted */ }
      if (!emitted) return { ...tsx, note: `npm run build failed, so the server ran under tsx: ${errors}`.slice(0, 2000) };
      return { kind: 'dist', args: [built], note: `npm run build reported type errors; dist/ was emitted anyway and ran: ${errors}`.slice(0, 2000) };
    }
  }
  return { kind: 'dist', args: [built] };
}

/** Spawns `node <args>` and waits until it listens and answers `probePath` with a 2xx/4xx. */
export async function startChild(root: string, args: string[], env: Record<string, string>, probePath: string): Promise<Child> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    if (url) {
      const answer = await fetch(url + probePath).catch(() => undefined);
      if (answer && answer.status < 500) {
        await answer.arrayBuffer();
        return { pid: child.pid!, url, startupMs: performance.now() - started, logs: () => output, stop: () => stop(child) };
      }
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
 * settings: PORT 0, warn logs, no rate limits, no demo data, and no webhook deliveries (a
 * server delivers to the endpoints its data names, and a data file's are off this machine);
 * `env` overrides them (the webhook measurement turns deliveries on, to its own receiver).
 */
export function startApi(
  root: string,
  command: ServerCommand,
  databaseUrl: string,
  secret: string,
  { nodeArgs = [], env = {} }: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<Child> {
  return startChild(root, [...nodeArgs, ...command.args], {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production',
    RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0', DEMO_DATA: 'false', WEBHOOK_DELIVERY: 'false', AUTH_JWT_SECRET: secret,
    ...env,
  }, '/categories?Take=1');
}

/** A bare baseline (`fastify` or `node`) serving the recorded answers of `routesFile`. */
export function startBaseline(root: string, kind: 'fastify' | 'node', routesFile: string): Promise<Child> {
  return startChild(root, ['--import', 'tsx', join(root, `scripts/bench/baseline-${kind}.ts`), routesFile], {}, '/__ready');
}

/** The bare SQL baseline (baseline-sql.ts) replaying `routesFile`'s statements on `databaseUrl`. */
export function startSqlBaseline(root: string, routesFile: string, databaseUrl: string): Promise<Child> {
  return startChild(root, ['--import', 'tsx', join(root, 'scripts/bench/baseline-sql.ts'), routesFile, databaseUrl], {}, '/__ready');
}
