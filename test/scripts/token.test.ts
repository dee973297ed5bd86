import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import t from 'tap';
import { DEMO_COMPANY_A, DEMO_IDS } from '../../src/store/demo-data.js';
import { serverCommand, startServer } from '../robustness/server-process.js';
import { engine, freshDatabase } from '../test-store.js';
import { unreachablePostgres } from './unreachable-postgres.js';

// docs/configuration.md, AUTH_JWT_SECRET: on PostgreSQL the secret (or AUTH_JWKS_URL) is
// required, start-up says so, and `npm run token` signs with the same AUTH_JWT_SECRET.

const root = new URL('../../', import.meta.url).pathname;
const WRITE = 'bookingsupplier-administrator-write';
const SECRET = 'the-secret-every-node-is-given';

function tokenCommand(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/token.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

t.test('on PostgreSQL without AUTH_JWT_SECRET or AUTH_JWKS_URL, start-up stops and says so, before touching the database', async (t) => {
  const [command, args] = serverCommand();
  const run = spawnSync(command, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: await unreachablePostgres(), AUTH_JWT_SECRET: '', AUTH_JWKS_URL: '' },
    encoding: 'utf8',
    timeout: 30000,
  });
  t.equal(run.status, 1);
  t.match(run.stderr, /AUTH_JWT_SECRET.*AUTH_JWKS_URL.*PostgreSQL/);
  t.notMatch(run.stderr, /ECONNREFUSED/, 'refused before any connection was tried');
});

t.test('`npm run token` on PostgreSQL: refused without AUTH_JWT_SECRET, signed with it when set', async (t) => {
  const databaseUrl = await unreachablePostgres();
  const refused = tokenCommand({ DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: '' }, '--company', DEMO_COMPANY_A, '--role', WRITE);
  t.equal(refused.status, 1);
  t.equal(refused.stdout, '', 'nothing on stdout');
  t.match(refused.stderr, /AUTH_JWT_SECRET/);

  const minted = tokenCommand({ DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: SECRET }, '--company', DEMO_COMPANY_A, '--role', WRITE);
  t.equal(minted.status, 0, minted.stderr);
  const { payload } = await jwtVerify(minted.stdout.trim(), new TextEncoder().encode(SECRET));
  t.match(payload, { company_id: DEMO_COMPANY_A, roles: [WRITE] });
});

t.test(`a server on ${engine} with AUTH_JWT_SECRET accepts what \`npm run token\` prints with the same environment`, async (t) => {
  const database = await freshDatabase();
  const env = { DATABASE_URL: database.url, AUTH_JWT_SECRET: SECRET };
  const server = await startServer(env).catch(async (err) => {
    await database.drop();
    throw err;
  });
  t.teardown(async () => {
    await server.stop();
    await database.drop();
  });
  const minted = tokenCommand(env, '--company', DEMO_COMPANY_A, '--role', WRITE);
  t.equal(minted.status, 0, minted.stderr);
  const res = await fetch(`${server.url}/tags/${DEMO_IDS.tags.vip}`, { method: 'DELETE', headers: { authorization: `Bearer ${minted.stdout.trim()}` } });
  t.equal(res.status, 200, 'accepted');
});
