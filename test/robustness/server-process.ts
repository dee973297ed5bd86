import { sql } from 'kysely';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { importData } from '../../src/import/import.js';
import { engine, freshDatabase } from '../test-store.js';
import { NODE_FLAGS } from '../../scripts/node-flags.mjs';

/**
 * The server as a user runs it: `src/server.ts` in its own process on a real socket
 * (127.0.0.1, PORT 0), so that tests and the soak script see what a client sees — real
 * connections, real timeouts, a process that can be killed. Shared by the robustness tests,
 * test/scripts/server.test.ts and scripts/soak.ts.
 */

const root = new URL('../../', import.meta.url).pathname;
/** Log text kept for diagnostics: the server may log a lot under load, keep only the tail. */
const KEEP_LOG_CHARS = 64 * 1024;

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** the last KEEP_LOG_CHARS of stdout and stderr */
  logs(): string;
  /** SIGTERM (graceful close), resolves with the exit code */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to flush or close anything */
  kill(): Promise<void>;
  /** resident set size in kB, undefined once the process is gone */
  rssKb(): number | undefined;
}

/** A port free on 127.0.0.1 now: a listener's, closed again, for a process that must be given one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The command that starts the server, for a child process or a one-off run. */
export function serverCommand(): [string, string[]] {
  // Served as npm start serves it: the soak's RSS bound holds with these flags.
  return [process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(root, 'src/server.ts')]];
}

/**
 * Starts the server with `env` on top of this process's environment (PORT 0 and
 * 127.0.0.1 unless given) and resolves once it logs where it listens. Needs LOG_LEVEL
 * info or lower (the default), since that log line is how the port is learned.
 */
export function startServer(env: Record<string, string>, timeoutMs = 30000): Promise<ServerProcess> {
  const [command, args] = serverCommand();
  const child = spawn(command, args, {
    cwd: root,
    // Webhook deliveries are off unless asked for: the demo data's endpoints name hosts off this
    // machine. So is load shedding, which a
    // test's burst of requests on a loaded machine would trip.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WEBHOOK_DELIVERY: 'false', SHED_QUEUE_WAIT_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const onData = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-KEEP_LOG_CHARS);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const server = (url: string): ServerProcess => ({
    child,
    pid: child.pid!,
    url,
    logs: () => text,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    rssKb: () => rssKb(child.pid!),
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${text}`));
    }, timeoutMs);
    const watch = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', watch);
      child.stderr!.off('data', watch);
      resolve(server(match[1]));
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${text}`));
    });
  });
}

/** VmRSS of a process in kB (Linux /proc; `ps` elsewhere); undefined when it is gone. */
export function rssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // not Linux, or the process is gone: ask ps
  }
  const ps = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' });
  const kb = Number(ps.stdout?.trim());
  return ps.status === 0 && Number.isFinite(kb) && kb > 0 ? kb : undefined;
}

/** A temporary directory removed by `cleanup`; the database file inside it. */
export function tempDatabase(prefix = 'booking-robust-'): { dir: string; path: string; url: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'booking.sqlite');
  return { dir, path, url: `file:${path}`, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A database for a server process, of the engine under test (../test-store.ts): a
 * temporary SQLite file (`path` says where), or a fresh PostgreSQL database (no `path`).
 * `cleanup` removes it, once nothing uses it any more.
 */
export async function serverDatabase(prefix?: string): Promise<{ url: string; path?: string; cleanup(): Promise<void> }> {
  if (engine === 'postgres') {
    const database = await freshDatabase();
    return { url: database.url, cleanup: database.drop };
  }
  const file = tempDatabase(prefix);
  return { url: file.url, path: file.path, cleanup: async () => file.cleanup() };
}

/** Creates (migrates) the database file, loads a data file (docs/importing.md) into it, closes it. */
export async function prepareDatabase(databaseUrl: string, data: unknown): Promise<void> {
  const store = await openStore(databaseUrl);
  try {
    await importData(store, data);
  } finally {
    await store.close();
  }
}

/**
 * PostgreSQL: waits (at most 10 s) until no other session is connected to the database, as
 * the server notices the sockets of a killed process closed; answers how many are left.
 */
export async function otherSessionsEnded(databaseUrl: string): Promise<number> {
  const store = await openStore(databaseUrl, { migrate: false });
  try {
    let others = -1;
    for (let waited = 0; waited < 10000 && others !== 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { rows } = await sql<{ n: number }>`
        select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(store.db);
      others = Number(rows[0].n);
    }
    return others;
  } finally {
    await store.close();
  }
}
