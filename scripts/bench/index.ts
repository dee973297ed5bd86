// `npm run bench`: builds (or reuses) seeded data sets at two scales, loads them into fresh
// PostgreSQL databases when a server is named, counts each operation's SQL statements on
// each engine, starts the API server on each engine and scale plus the bare Fastify and
// node:http baselines, measures the representative operations in alternating rounds, checks
// the targets, measures what webhook deliveries add to a write (webhooks.ts), profiles the
// misses, and writes results.md (this run on top of the earlier ones) and ratios.svg. See
// options.ts for the flags.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../../src/auth/token.js';
import { ratiosChart } from './chart.js';
import { commandLine } from './command.js';
import { compareMarkdown, prepareCompare } from './compare.js';
import { ensureDataset, type Dataset } from './dataset.js';
import { withEarlierRuns } from './history.js';
import { ENGINE_LABEL, enginesOf, measureRounds, recordAnswers, requestsFor, type Answer, type Engine, type PerEngine } from './measure.js';
import { OPERATIONS, selectOperations } from './operations.js';
import { parseOptions } from './options.js';
import { copyDatabase, loadIntoPostgres, redacted, serverVersion, type BenchDatabase } from './postgres.js';
import { memoryOf } from './proc.js';
import { profileMisses } from './profiles.js';
import { loadAverage, machineFacts, resultsMarkdown, type PostgresReport } from './report.js';
import { bareStatements, type SqlRoute } from './baseline-sql-routes.js';
import { cleanUpIfInterrupted, serverCommand, startApi, startBaseline, startSqlBaseline, type Child } from './servers.js';
import { countOperationStatements, type CountedCall } from './statements.js';
import { checkTargets, summarize } from './summary.js';
import { webhookTargets } from './webhook-report.js';
import { measureWebhooks, WEBHOOK_OPERATION, type WebhookResult } from './webhooks.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const argv = process.argv.slice(2);
const options = parseOptions(argv, root);
const operations = selectOperations(options.only);
const began = performance.now();
const loadAtStart = loadAverage();
const log = (line: string) => console.error(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}`);
mkdirSync(options.work, { recursive: true });
mkdirSync(options.out, { recursive: true });

/** A fresh copy of a cached data set for one server: writes under load never reach the cache. */
function runCopy(dataset: Dataset, name: string): string {
  const file = join(options.work, `run-${name}.sqlite`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  copyFileSync(dataset.file, file);
  return `file:${file}`;
}
const removeCopies = () => {
  for (const name of ['full', 'small', 'profile', 'compare', 'webhook-off', 'webhook-on']) for (const suffix of ['', '-wal', '-shm']) rmSync(join(options.work, `run-${name}.sqlite${suffix}`), { force: true });
};

const command = serverCommand(root, options.server);
const compared = options.compare ? prepareCompare(root, options.work, options.compare) : undefined;
if (compared) log(`comparing with ${options.compare} (${compared.commit.slice(0, 12)}), built in ${compared.dir}`);
log(`server: ${command.kind}${command.note ? ` (${command.note.split('\n')[0]})` : ''}; machine: ${JSON.stringify(machineFacts())}`);
const postgres = options.postgres;
if ('skipped' in postgres) log(`PostgreSQL skipped: ${postgres.skipped}; measuring SQLite only`);
const postgresVersion = 'server' in postgres ? await serverVersion(postgres.server) : undefined;
if ('server' in postgres) log(`PostgreSQL ${postgresVersion} at ${redacted(postgres.server)} (from ${postgres.from})`);
const smallScale = Number((options.scale * options.smallRatio).toPrecision(6));
const full = await ensureDataset(options.work, options.scale, options.seed);
log(`full scale ${options.scale}: ${full.cached ? 'cached' : `generated in ${(full.meta.generationMs / 1000).toFixed(1)} s`} (${full.file})`);
const small = await ensureDataset(options.work, smallScale, options.seed);
log(`small scale ${smallScale}: ${small.cached ? 'cached' : `generated in ${(small.meta.generationMs / 1000).toFixed(1)} s`}`);

const secret = randomBytes(24).toString('base64url');
const bearerOf = async (d: Dataset) => `Bearer ${await mintToken(secret, { companyId: d.meta.hotCompanyId, roles: ['bookingsupplier-administrator-write'], sub: 'bench', expiresIn: '2h' })}`;
const fullRequests = requestsFor(operations, full.meta, await bearerOf(full));
const smallRequests = requestsFor(operations, small.meta, await bearerOf(small));

const children: Child[] = [];
const databases: BenchDatabase[] = [];
const dropDatabases = () => Promise.all(databases.splice(0).map((d) => d.drop())).then(() => {});
const forgetCleanup = cleanUpIfInterrupted(dropDatabases);
try {
  const urls: PerEngine<{ full: string; small: string }> = { sqlite: { full: runCopy(full, 'full'), small: runCopy(small, 'small') } };
  let postgresReport: PostgresReport | undefined = 'skipped' in postgres ? { skipped: postgres.skipped } : undefined;
  let pgFull: BenchDatabase | undefined;
  if ('server' in postgres) {
    pgFull = await loadIntoPostgres(postgres.server, full);
    const pgSmall = await loadIntoPostgres(postgres.server, small);
    databases.push(pgFull, pgSmall);
    log(`PostgreSQL databases ${pgFull.name} (loaded in ${(pgFull.loadMs / 1000).toFixed(1)} s) and ${pgSmall.name} (${(pgSmall.loadMs / 1000).toFixed(1)} s)`);
    urls.postgres = { full: pgFull.url, small: pgSmall.url };
    postgresReport = { server: redacted(postgres.server), version: postgresVersion!, from: postgres.from, loadMs: { full: pgFull.loadMs, small: pgSmall.loadMs } };
  }
  const engines = enginesOf(urls);

  // Counted before the servers start, on the data they will serve: one in-process call each.
  const statements = new Map<string, PerEngine<CountedCall>>(operations.map((op) => [op.id, {} as PerEngine<CountedCall>]));
  for (const engine of engines) {
    const counted = await countOperationStatements(urls[engine]!.full, secret, operations, fullRequests);
    for (const [id, call] of counted) statements.get(id)![engine] = call;
  }
  for (const op of operations) log(`statements ${op.id.padEnd(28)} ${engines.map((e) => `${e} ${statements.get(op.id)![e]!.statements}`).join(', ')}`);

  const servers: PerEngine<{ full: Child; small: Child }> = { sqlite: await startPair('sqlite') };
  if (urls.postgres) servers.postgres = await startPair('postgres');
  async function startPair(engine: Engine) {
    const pair = { full: await startApi(root, command, urls[engine]!.full, secret), small: await startApi(root, command, urls[engine]!.small, secret) };
    children.push(pair.full, pair.small);
    log(`API on ${ENGINE_LABEL[engine]} up in ${pair.full.startupMs.toFixed(0)} ms (full), ${pair.small.startupMs.toFixed(0)} ms (small)`);
    return pair;
  }

  const recorded = new Map<Engine, Awaited<ReturnType<typeof recordAnswers>>>();
  for (const engine of engines) {
    const [atFull, atSmall] = [await recordAnswers(servers[engine]!.full.url, operations, fullRequests), await recordAnswers(servers[engine]!.small.url, operations, smallRequests)];
    recorded.set(engine, atFull);
    for (const op of operations) {
      for (const [scale, a] of [['full', atFull.answers.get(op.id)!], ['small', atSmall.answers.get(op.id)!]] as const) {
        if (!a.ok) log(`WARNING ${op.id} on ${engine} at ${scale} scale answered ${a.status}, expected ${op.status}: ${a.snippet}`);
      }
    }
  }
  // What holds on SQLite holds on PostgreSQL: the same rows give the same read answers.
  const bodies = (engine: Engine) => new Map(recorded.get(engine)!.routes.map((r) => [r.path, r.bodyBase64]));
  const differingReads = recorded.has('postgres')
    ? operations.filter((op) => op.kind === 'read' && bodies('sqlite').get(`/${op.id}`) !== bodies('postgres').get(`/${op.id}`)).map((op) => op.label)
    : [];
  if (differingReads.length > 0) log(`WARNING read answers differ between the engines: ${differingReads.join(', ')}`);

  // The baselines replay SQLite's answers: the reads are PostgreSQL's too (checked above); a write's
  // answer describes what it created, which may differ in a timestamp.
  const routesFile = join(options.work, 'baseline-routes.json');
  writeFileSync(routesFile, JSON.stringify(recorded.get('sqlite')!.routes));
  const before = compared ? await startApi(compared.dir, compared.command, runCopy(full, 'compare'), secret) : undefined;
  if (before) children.push(before);
  const fastify = await startBaseline(root, 'fastify', routesFile);
  children.push(fastify);
  const node = await startBaseline(root, 'node', routesFile);
  children.push(node);
  // The bare SQL baseline replays each engine's own statements on that engine's full-scale data.
  const startSql = async (engine: Engine) => {
    const file = join(options.work, `baseline-sql-${engine}.json`);
    writeFileSync(file, JSON.stringify(operations.map((op): SqlRoute => ({ path: `/${op.id}`, write: op.kind === 'write', variants: statements.get(op.id)![engine]!.variants.map(bareStatements) }))));
    const child = await startSqlBaseline(root, file, urls[engine]!.full);
    children.push(child);
    return child;
  };
  const sql: PerEngine<Child> = { sqlite: await startSql('sqlite') };
  if (urls.postgres) sql.postgres = await startSql('postgres');

  const samples = await measureRounds(
    { engines: servers, fastify, node, sql, ...(before ? { compare: before } : {}) },
    operations,
    fullRequests,
    smallRequests,
    { connections: options.connections, duration: options.duration, rounds: options.rounds, warmup: options.warmup, seed: options.seed, log },
  );
  const facts = (child: Child) => ({ startupMs: child.startupMs, peakRssKb: memoryOf(child.pid)?.hwmKb ?? 0 });
  const serverFacts: PerEngine<{ full: ReturnType<typeof facts>; small: ReturnType<typeof facts> }> = { sqlite: { full: facts(servers.sqlite.full), small: facts(servers.sqlite.small) } };
  if (servers.postgres) serverFacts.postgres = { full: facts(servers.postgres.full), small: facts(servers.postgres.small) };
  await Promise.all(children.splice(0).map((c) => c.stop()));

  // Two copies of the full-scale data per engine, made now that nothing is connected to it.
  const webhooks: Partial<PerEngine<WebhookResult>> = {};
  if (options.webhooks) {
    const request = OPERATIONS.find((op) => op.id === WEBHOOK_OPERATION)!.request(full.meta, await bearerOf(full));
    for (const engine of engines) {
      const copy = async (side: 'off' | 'on') => {
        if (engine === 'sqlite' || !('server' in postgres)) return runCopy(full, `webhook-${side}`);
        const database = await copyDatabase(postgres.server, pgFull!);
        databases.push(database);
        return database.url;
      };
      const copies = { off: await copy('off'), on: await copy('on') };
      log(`webhooks on ${ENGINE_LABEL[engine]}: ${WEBHOOK_OPERATION} without and with delivery, on copies ${Object.values(copies).map((url) => new URL(url).pathname.split('/').pop()).join(' and ')}`);
      webhooks[engine] = await measureWebhooks({
        root, command, secret, databases: copies, meta: full.meta, request,
        connections: options.connections, duration: options.duration, rounds: options.rounds, warmup: options.warmup, seed: options.seed, log,
      });
    }
  }
  await dropDatabases();

  const summaries = new Map(operations.map((op) => {
    const answers: PerEngine<Answer> = { sqlite: recorded.get('sqlite')!.answers.get(op.id)! };
    if (recorded.has('postgres')) answers.postgres = recorded.get('postgres')!.answers.get(op.id)!;
    return [op.id, summarize(op, answers, samples.get(op.id)!)];
  }));
  const fullFacts: PerEngine<{ peakRssKb: number; startupMs: number }> = { sqlite: serverFacts.sqlite.full };
  if (serverFacts.postgres) fullFacts.postgres = serverFacts.postgres.full;
  const webhookResults = webhooks.sqlite ? (webhooks as PerEngine<WebhookResult>) : undefined;
  const checks = [...checkTargets(operations, summaries, samples, fullFacts), ...(webhookResults ? webhookTargets(webhookResults) : [])];
  log(`targets: ${engines.map((e) => `${e} ${checks.filter((c) => c.engine === e && c.met).length} of ${checks.filter((c) => c.engine === e).length}`).join(', ')} met; profiling SQLite's misses`);
  const profiles = await profileMisses(checks, {
    root, command, secret, dir: join(options.work, 'profiles'), freshDb: () => runCopy(full, 'profile'),
    requests: fullRequests, connections: options.connections, duration: options.duration, max: options.maxProfiles, log,
  });

  const ops = [...summaries.values()];
  const date = new Date();
  const settings = { connections: options.connections, duration: options.duration, rounds: options.rounds, warmup: options.warmup, seed: options.seed };
  const report = {
    date, command: commandLine(argv, postgres), wallSeconds: (performance.now() - began) / 1000, load: { start: loadAtStart, end: loadAverage() }, settings, server: command,
    full: { meta: full.meta, cached: full.cached }, small: { meta: small.meta, cached: small.cached }, servers: serverFacts, postgres: postgresReport!,
    ops, statements, differingReads, checks, profiles, ...(webhookResults ? { webhooks: webhookResults } : {}),
  };
  const run = resultsMarkdown(report) + (compared ? `\n${compareMarkdown(options.compare!, compared.commit, samples)}` : '');
  const resultsFile = join(options.out, 'results.md');
  writeFileSync(resultsFile, withEarlierRuns(run, existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : undefined));
  writeFileSync(join(options.out, 'ratios.svg'), ratiosChart(ops, `${date.toISOString().slice(0, 10)} · ${machineFacts().cores} cores · Node ${process.version} · scale ${options.scale} · ${options.connections} connections × ${options.duration} s × ${options.rounds} rounds`));
  writeFileSync(join(options.work, 'results.json'), `${JSON.stringify({ ...report, statements: Object.fromEntries(statements), machine: machineFacts(), samples: Object.fromEntries(samples) }, null, 2)}\n`);
  console.log(run);
  log(`wrote ${resultsFile} and ratios.svg in ${((performance.now() - began) / 1000).toFixed(0)} s`);
} finally {
  await Promise.all(children.map((c) => c.stop()));
  removeCopies();
  await dropDatabases();
  forgetCleanup();
}
