// `npm run test:two-versions [-- --old <commit>]`: two versions of the service on one
// PostgreSQL database under steady reads and writes (docs/operating.md, "Deploying a new
// version with no downtime"). The old build (e1ec3bf by default, which predates the keys of
// retried writes and the bookkeeping of versions) is cloned into a temporary directory and
// installed there. It serves while the current build starts and applies its migrations, and
// both serve; then the current build restarts as an older node over an expand migration it
// does not know (made here) and serves again. Nothing that should succeed fails, and every
// acknowledged write is in the database. PostgreSQL comes from --postgres, else
// TEST_POSTGRES_URL. `--install-only` installs the old build and stops.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { mintToken } from '../src/auth/token.js';
import { DEMO_COMPANY_A } from '../src/store/demo-data.js';
import { LAST_MIGRATION } from '../src/store/migrations/index.js';

const { values } = parseArgs({
  options: { old: { type: 'string', default: 'e1ec3bf' }, postgres: { type: 'string' }, 'install-only': { type: 'boolean', default: false } },
});
const root = join(import.meta.dirname, '..');
// CI installs the old build while the suite runs, and runs this test after it.
if (values['install-only']) {
  console.log(`two-versions: ${values.old} is installed in ${oldBuild(values.old!)}`);
  process.exit(0);
}
const server = values.postgres ?? process.env.TEST_POSTGRES_URL;
if (!server) {
  console.error('two-versions: give --postgres <url> or set TEST_POSTGRES_URL');
  process.exit(1);
}
const SECRET = 'two-versions-secret-0123456789';
const WRITE = 'bookingsupplier-administrator-write';

function check(what: string, result: ReturnType<typeof spawnSync>) {
  if (result.status !== 0) throw new Error(`${what} failed:\n${result.stdout}${result.stderr}`);
}

/** The old build, cloned and installed once per commit under the temporary directory. */
function oldBuild(revision: string): string {
  const commit = spawnSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], { cwd: root, encoding: 'utf8' }).stdout.trim();
  if (!commit) throw new Error(`no commit ${revision}`);
  const dir = join(tmpdir(), `booking-two-versions-${commit.slice(0, 12)}`);
  if (existsSync(join(dir, 'node_modules', '.installed'))) return dir;
  console.log(`two-versions: installing ${commit.slice(0, 12)} in ${dir} ...`);
  spawnSync('rm', ['-rf', dir]);
  check('git clone', spawnSync('git', ['clone', '-q', '--no-checkout', root, dir], { encoding: 'utf8' }));
  check('git checkout', spawnSync('git', ['checkout', '-q', commit], { cwd: dir, encoding: 'utf8' }));
  // No install scripts: the old build runs on PostgreSQL only, and better-sqlite3 loads its
  // addon (whose compile is most of an install) only when a database is opened with it.
  check('npm ci', spawnSync('npm', ['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' }));
  mkdirSync(join(dir, 'node_modules', '.installed'), { recursive: true });
  return dir;
}

interface Node {
  name: string;
  url: string;
  child: ChildProcess;
  logs(): string;
}

let nextPort = 24000 + Math.floor(Math.random() * 10000);

async function startNode(name: string, dir: string, databaseUrl: string): Promise<Node> {
  const port = (nextPort += 1);
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'src/server.ts')], {
    cwd: dir,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: SECRET, DEMO_DATA: 'true',
      RATE_LIMIT_MAX: '0', REBATE_LOOKUP_RATE_LIMIT_MAX: '0', WEBHOOK_DELIVERY: 'false', LOG_LEVEL: 'warn', LOG_FORMAT: 'json',
      // Shedding off in either build: the old one reads the first, the current one the second.
      SHED_EVENT_LOOP_DELAY_MS: '0', SHED_QUEUE_WAIT_MS: '0',
      // As behind a balancer: a request already on its way when SIGTERM comes is still served.
      SHUTDOWN_DELAY_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk) => (text += chunk));
  child.stderr!.on('data', (chunk) => (text += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${text}`);
    const res = await fetch(`${url}/health`).catch(() => undefined);
    if (res?.status === 200) return { name, url, child, logs: () => text };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not answer within 120 s:\n${text}`);
}

/** SIGTERM: the node finishes what it has and exits. */
async function stopNode(node: Node): Promise<void> {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGTERM');
  await exited;
}

/** Reads and writes on the nodes in rotation, one after another, until stopped. */
function steadyLoad(rotation: Node[], token: string) {
  const served: Record<string, number> = {};
  const failures: string[] = [];
  let written = 0;
  let running = true;
  let turn = 0;
  const loop = (async () => {
    while (running) {
      const node = rotation[turn++ % rotation.length];
      if (!node) {
        await sleep(10);
        continue;
      }
      const name = `tv-${turn}-${randomBytes(3).toString('hex')}`;
      const calls: Array<[string, RequestInit, boolean]> = [
        [`/categories?CompanyId=${DEMO_COMPANY_A}`, {}, false],
        [
          '/messages/templates',
          {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ TypeId: 1, Name: name, Title: 'Two versions', Body: 'Hi {Firstname}', Sender: 'booking@example.com', Services: [101] }),
          },
          true,
        ],
      ];
      for (const [path, init, isWrite] of calls) {
        // A balancer routes each request to a node in rotation: none is sent to a node taken out.
        if (!rotation.includes(node)) break;
        try {
          const res = await fetch(node.url + path, init);
          const body = await res.text();
          if (res.status === 200) {
            served[node.name] = (served[node.name] ?? 0) + 1;
            if (isWrite) written += 1;
          } else failures.push(`${node.name} ${init.method ?? 'GET'} ${path}: ${res.status} ${body.slice(0, 300)}`);
        } catch (err) {
          failures.push(`${node.name} ${init.method ?? 'GET'} ${path}: ${(err as Error).message}`);
        }
      }
    }
  })();
  return {
    served,
    failures,
    written: () => written,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Takes a node out of the rotation, as a balancer does once its /ready fails, before it stops. */
const without = (rotation: Node[], node: Node) => rotation.splice(rotation.indexOf(node), 1);

const database = `booking_two_versions_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
await admin.query(`create database ${database}`);
const url = new URL(server);
url.pathname = `/${database}`;
const databaseUrl = url.toString();
const nodes: Node[] = [];
let failed = false;
try {
  const oldDir = oldBuild(values.old!);
  const token = await mintToken(SECRET, { companyId: DEMO_COMPANY_A, roles: [WRITE] });
  const rotation: Node[] = [];

  const old = await startNode(`old (${values.old})`, oldDir, databaseUrl);
  nodes.push(old);
  rotation.push(old);
  const load = steadyLoad(rotation, token);
  await sleep(2000);

  const servedByOldBefore = load.served[old.name] ?? 0;
  const current = await startNode('current', root, databaseUrl);
  nodes.push(current);
  const servedByOldWhileMigrating = (load.served[old.name] ?? 0) - servedByOldBefore;
  rotation.push(current);
  await sleep(3000);

  // A newer version's expand migration, made for this run: the current build is the older node now.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query('create table two_versions_extra (id integer)');
  await db.query(`insert into kysely_migration (name, timestamp) values ('9999_two_versions_extra', now()::text)`);
  await db.query(`insert into migration_kinds (name, kind) values ('9999_two_versions_extra', 'expand')`);
  without(rotation, current);
  await stopNode(current);
  const restarted = await startNode('current, restarted under a newer expand migration', root, databaseUrl);
  nodes.push(restarted);
  rotation.push(restarted);
  await sleep(3000);
  await load.stop();

  // What a newer version's `--contract` would read: the restarted node alone (e1ec3bf records none).
  const beating = (await db.query(`select version from store_nodes order by version`)).rows.map((row) => row.version);
  const { rows } = await db.query(`select count(*)::int as n from message_templates where name like 'tv-%'`);
  await db.end();
  const report = {
    served: load.served,
    servedByOldWhileTheCurrentMigrated: servedByOldWhileMigrating,
    acknowledgedWrites: load.written(),
    writesInTheDatabase: rows[0].n,
    failures: load.failures,
    nodesRecorded: beating,
    restartedLog: /newer expand migrations/.test(restarted.logs()) ? 'says it serves beside a newer version' : 'says nothing of the newer version',
  };
  console.log(JSON.stringify(report, null, 2));
  const problems = [
    ...load.failures,
    ...(servedByOldWhileMigrating > 0 ? [] : ['the old node answered nothing while the current build started and migrated']),
    ...(report.acknowledgedWrites === report.writesInTheDatabase ? [] : [`${report.acknowledgedWrites} writes acknowledged, ${report.writesInTheDatabase} in the database`]),
    ...[old, current, restarted].filter((node) => !load.served[node.name]).map((node) => `${node.name} served nothing`),
    ...(report.restartedLog.startsWith('says it') ? [] : ['the restarted node did not log that it serves beside a newer version']),
    ...(beating.join() === LAST_MIGRATION ? [] : [`store_nodes holds ${JSON.stringify(beating)}, not the restarted node's version alone (${LAST_MIGRATION})`]),
  ];
  if (problems.length > 0) {
    failed = true;
    console.error(`two-versions: FAILED\n${problems.join('\n')}`);
  } else console.log('two-versions: passed');
} catch (err) {
  failed = true;
  console.error(`two-versions: ${(err as Error).stack}`);
  for (const node of nodes) console.error(`--- ${node.name}\n${node.logs().slice(-3000)}`);
} finally {
  for (const node of nodes) await stopNode(node);
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}
process.exit(failed ? 1 : 0);
