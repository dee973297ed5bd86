import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { TEST_SECRET } from '../helper.js';
import { freePort } from '../robustness/server-process.js';

// `npm start` goes down with whatever started it (docs/operating.md, "Stopping"): npm runs the
// script with `exec`, so the server is the process npm started, in npm's process group. Each
// test starts `npm start` in a process group of its own, as a terminal or a supervisor does.

const root = new URL('../../', import.meta.url).pathname;

interface Started {
  npm: ChildProcess;
  /** the server's pid: the process npm started */
  server: number;
  exited: Promise<number | null>;
  log(): string;
}

/** The pid of the one child of `pid` (Linux's /proc). */
function childOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  if (children.length !== 1) throw new Error(`npm (pid ${pid}) has ${children.length} children`);
  return Number(children[0]);
}

/** Whether the process is gone: no longer there, or a zombie that holds nothing. */
function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function npmStart(t: Test, port: number, env: Record<string, string> = {}): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'booking-npm-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const npm = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), DATABASE_URL: `file:${join(dir, 'booking.sqlite')}`, AUTH_JWT_SECRET: TEST_SECRET, LOG_FORMAT: 'json', ...env },
  });
  let text = '';
  npm.stdout!.on('data', (chunk) => (text += chunk));
  npm.stderr!.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  // The first start may build dist/.
  const deadline = performance.now() + 120_000;
  while ((await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined))?.status !== 200) {
    if (performance.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not get ready:\n${text}`);
    await sleep(50);
  }
  return { npm, server: childOf(npm.pid!), exited, log: () => text };
}

async function waitGone(pid: number, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!gone(pid) && performance.now() - started < withinMs) await sleep(20);
  return performance.now() - started;
}

const closingLines = (log: string) => log.split('\n').filter((line) => /"msg":"closing"/.test(line));
const errorLines = (log: string) => log.split('\n').filter((line) => /"level":(50|60)|second SIG|npm error/.test(line));

t.test('the server is the process npm started, with the V8 flags on its command line', async (t) => {
  const started = await npmStart(t, await freePort());
  const command = readFileSync(`/proc/${started.server}/cmdline`, 'utf8').split('\0');
  t.match(command, ['node', '--no-allocation-site-pretenuring', '--heap-growing-percent=50', 'scripts/start.mjs'], `its command: ${command.join(' ')}`);
  process.kill(started.npm.pid!, 'SIGTERM');
  await started.exited;
});

t.test('SIGKILL to the process group: the server is gone, and a new npm start on the port serves with its new settings', async (t) => {
  const port = await freePort();
  const first = await npmStart(t, port);
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'no METRICS_TOKEN: no /metrics');
  process.kill(-first.npm.pid!, 'SIGKILL');
  t.ok((await waitGone(first.server, 2000)) < 2000, 'the server is gone');
  const second = await npmStart(t, port, { METRICS_TOKEN: 'metrics-token' });
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer metrics-token' } })).status, 200, 'the new start serves, with METRICS_TOKEN');
  process.kill(second.npm.pid!, 'SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('SIGKILL to npm alone: the server closes within 2 s, and a new npm start on the port serves with its new settings', async (t) => {
  const port = await freePort();
  const first = await npmStart(t, port);
  process.kill(first.npm.pid!, 'SIGKILL');
  const took = await waitGone(first.server, 5000);
  t.ok(took < 2000, `the server is gone after ${Math.round(took)} ms`);
  const second = await npmStart(t, port, { METRICS_TOKEN: 'metrics-token' });
  t.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer metrics-token' } })).status, 200, 'the new start serves, with METRICS_TOKEN');
  process.kill(second.npm.pid!, 'SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('SIGTERM to npm: one drain, and npm exits 0', async (t) => {
  const started = await npmStart(t, await freePort());
  process.kill(started.npm.pid!, 'SIGTERM');
  t.equal(await started.exited, 0, 'npm exits 0');
  t.ok(gone(started.server), 'the server is gone');
  t.equal(closingLines(started.log()).length, 1, 'one drain');
  t.match(closingLines(started.log())[0], /"signal":"SIGTERM"/);
  t.strictSame(errorLines(started.log()), [], 'no error line');
});

t.test('Ctrl-C, SIGINT to the process group: one drain, no error line, npm exits 0', async (t) => {
  const started = await npmStart(t, await freePort());
  // The server gets it twice: from the group, and again as npm passes it on.
  process.kill(-started.npm.pid!, 'SIGINT');
  t.equal(await started.exited, 0, 'npm exits 0');
  t.ok(gone(started.server), 'the server is gone');
  t.equal(closingLines(started.log()).length, 1, 'one drain');
  t.strictSame(errorLines(started.log()), [], 'no error line');
});
