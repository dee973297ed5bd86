import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import t from 'tap';
import { DEMO_COMPANY_A, DEMO_IDS } from '../../src/store/demo-data.js';
import { serverCommand, startServer } from '../robustness/server-process.js';

// The commands of README's "Set-up" and docs/api.md's "Credentials", run as a user runs them: the server
// as a process on a real socket, and `npm run token`.

const root = new URL('../../', import.meta.url).pathname;

function tokenCommand(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/token.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

t.test('a bad configuration value stops start-up with a message naming the variable', async (t) => {
  const [command, args] = serverCommand();
  const run = spawnSync(command, args, {
    cwd: root,
    env: { ...process.env, PORT: 'eighty', DATABASE_URL: 'file::memory:' },
    encoding: 'utf8',
  });
  t.equal(run.status, 1);
  t.match(run.stderr, /PORT/);
});

t.test('start, demo data once, a token from `npm run token`, real-socket calls, graceful stop', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `file:${join(dir, 'booking.sqlite')}`, LOG_LEVEL: 'info' };

  const first = await startServer(env);
  t.match(first.logs(), /loaded the demo data set/);
  const health = await fetch(`${first.url}/health`);
  t.equal(health.status, 200);
  const categories = (await (await fetch(`${first.url}/categories?Take=1`)).json()) as { Total: number };
  t.ok(categories.Total > 0, 'demo categories are served');

  const minted = tokenCommand(env, '--company', DEMO_COMPANY_A, '--role', 'bookingsupplier-administrator-write');
  t.equal(minted.status, 0, minted.stderr);
  const lines = minted.stdout.split('\n').filter(Boolean);
  t.equal(lines.length, 1, 'one line on stdout');
  const secret = readFileSync(join(dir, '.jwt-secret'), 'utf8').trim();
  const { payload } = await jwtVerify(lines[0], new TextEncoder().encode(secret));
  t.match(payload, { company_id: DEMO_COMPANY_A, roles: ['bookingsupplier-administrator-write'] });

  const del = await fetch(`${first.url}/tags/${DEMO_IDS.tags.vip}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${lines[0]}` },
  });
  t.equal(del.status, 200, 'the server accepts the minted token');
  t.equal(((await del.json()) as { Active: boolean }).Active, false);
  const csv = await fetch(`${first.url}/categories.csv?Take=2`);
  t.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.equal(await first.stop(), 0, 'SIGTERM stops it cleanly');

  const second = await startServer(env);
  t.notMatch(second.logs(), /loaded the demo data set/, 'the demo data loads only into an empty store');
  const again = (await (await fetch(`${second.url}/categories?Take=0`)).json()) as { Total: number };
  t.equal(again.Total, categories.Total, 'no duplicate reference data');
  t.equal(await second.stop(), 0);
});

t.test('DEMO_DATA=false starts on an empty store', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-start-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({ DATABASE_URL: `file:${join(dir, 'b.sqlite')}`, DEMO_DATA: 'false' });
  const categories = (await (await fetch(`${server.url}/categories`)).json()) as { Total: number };
  t.equal(categories.Total, 0);
  await server.stop();
});

t.test('the token command refuses a bad company and prints nothing on stdout', async (t) => {
  const run = tokenCommand({ DATABASE_URL: 'file::memory:' }, '--company', 'nope', '--role', 'superadmin');
  t.equal(run.status, 1);
  t.equal(run.stdout, '');
  t.match(run.stderr, /--company/);
});

t.test('the token command honours --expires-in and --sub', async (t) => {
  const run = tokenCommand(
    { DATABASE_URL: 'file::memory:', AUTH_JWT_SECRET: 'a-secret-for-the-token-test' },
    '--company', DEMO_COMPANY_A, '--role', 'superadmin', '--role', 'bookingsupplier-administrator-read',
    '--sub', 'user-7', '--expires-in', '2h',
  );
  t.equal(run.status, 0, run.stderr);
  const { payload } = await jwtVerify(run.stdout.trim(), new TextEncoder().encode('a-secret-for-the-token-test'));
  t.equal(payload.sub, 'user-7');
  t.same(payload.roles, ['superadmin', 'bookingsupplier-administrator-read']);
  t.ok(payload.exp! - payload.iat! === 7200);
});
