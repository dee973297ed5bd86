import { spawnSync } from 'node:child_process';
import { jwtVerify } from 'jose';
import t from 'tap';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';

// `npm run --silent token` as the README has it, through npm itself: the token alone on
// stdout, so that `T=$(npm run --silent token -- …)` holds it. Without --silent npm puts its
// own banner on stdout first; the command then says on stderr how to get the token alone.

const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'a-secret-for-the-npm-token-test';

function npmRun(...args: string[]) {
  // npm exports npm_config_loglevel=silent to the scripts it runs silenced (this test may be one): not inherited.
  const { npm_config_loglevel: _inherited, ...env } = process.env;
  return spawnSync('npm', ['run', ...args, 'token', '--', '--company', DEMO_COMPANY_A, '--role', 'superadmin'], {
    cwd: root,
    env: { ...env, DATABASE_URL: 'file::memory:', AUTH_JWT_SECRET: SECRET },
    encoding: 'utf8',
    timeout: 60000,
  });
}

t.test('`npm run --silent token` prints the token alone', async (t) => {
  const run = npmRun('--silent');
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/, 'one line: the token');
  const { payload } = await jwtVerify(run.stdout.trim(), new TextEncoder().encode(SECRET));
  t.match(payload, { company_id: DEMO_COMPANY_A, roles: ['superadmin'] });
  t.notMatch(run.stderr, /npm run --silent token/, 'no advice needed');
});

t.test('`npm run token` captured: npm banner on stdout before the token, and advice on stderr', async (t) => {
  const run = npmRun();
  t.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split('\n').filter(Boolean);
  t.ok(lines.length > 1, "npm's banner is there too");
  t.match(lines[0], /^> /);
  await jwtVerify(lines.at(-1)!, new TextEncoder().encode(SECRET));
  t.match(run.stderr, /`npm run --silent token -- …` prints the token alone/);
});
