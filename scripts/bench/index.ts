// `npm run bench`: builds (or reuses) seeded data sets at two scales, loads them into fresh
// PostgreSQL databases when a server is named, records each operation's SQL statements on
// each engine, starts the API server on each engine and scale beside the bare Fastify,
// node:http and SQL baselines (and the --compare build on each engine), measures the
// representative operations in alternating rounds, checks the targets, measures what webhook
// deliveries add to a write (webhooks.ts), what MCP adds to a call (mcp.ts) and what tracing
// costs (tracing.ts), profiles the misses, and writes results.md with this run alone.
// options.ts lists the flags.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../../src/auth/token.js';
import { ensureDataset, type Dataset } from './dataset.js';
import { keyMeasured, keyTargets, measureKeys } from './idempotency.js';
import { mcpOperations, mcpTargets, measureMcp } from './mcp.js';
import { eachEngine, ENGINE_LABEL, enginesOf, mapEngines, measureRounds, recordAnswers, requestsFor, type Engine, type PerEngine } from './measure.js';
import { OPERATIONS, selectOperations } from './operations.js';
import { commandLine, parseOptions } from './options.js';
import { copyDatabase, loadIntoPostgres, redacted, serverVersion, type BenchDatabase } from './postgres.js';
import { peakRssOf } from './proc.js';
import { profileMisses } from './profiles.js';
import { loadAverage, machineFacts, resultsMarkdown, snippet, type PostgresReport, type ReportInput } from './report.js';
import { cleanUpIfInterrupted, forgetNewerMigrations, prepareCompare, serverCommand, startApi, startBaseline, type Child } from './servers.js';
import { bareStatements, countOperationStatements, type SqlRoute } from './statements.js';
import { checkTargets, compareTargets, summarize } from './summary.js';
import { measureTracing, tracingOperations } from './tracing.js';
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

const copies = new Set<string>();
/** A fresh copy of a cached data set for one server: writes under load never reach the cache. */
function runCopy(dataset: Dataset, name: string): string {
  const file = join(options.work, `run-${name}.sqlite`);
  removeCopy(file);
  copyFileSync(dataset.file, file);
  copies.add(file);
  return `file:${file}`;
}
const removeCopy = (file: string) => ['', '-wal', '-shm'].forEach((suffix) => rmSync(file + suffix, { force: true }));

const command = serverCommand(root, options.server);
const compared = options.compare ? prepareCompare(root, options.work, options.compare) : undefined;
if (compared) log(`comparing with ${options.compare} (${compared.commit.slice(0, 12)}), built in ${compared.dir}`);
log(`server: ${command.kind}${command.note ? ` (${command.note.split('\n')[0]})` : ''}; machine: ${JSON.stringify(machineFacts())}`);
const postgres = options.postgres;
if ('skipped' in postgres) log(`PostgreSQL skipped: ${postgres.skipped}; measuring SQLite only`);
const postgresVersion = 'server' in postgres ? await serverVersion(postgres.server) : '';
if ('server' in postgres) log(`PostgreSQL ${postgresVersion} at ${redacted(postgres.server)} (from ${postgres.from})`);
const datasets = { full: await ensureDataset(options.work, options.scale, options.seed), small: await ensureDataset(options.work, Number((options.scale * options.smallRatio).toPrecision(6)), options.seed) };
for (const [scale, d] of Object.entries(datasets)) log(`${scale} scale ${d.meta.scale}: ${d.cached ? 'cached' : `generated in ${(d.meta.generationMs / 1000).toFixed(1)} s`} (${d.file})`);

const secret = randomBytes(24).toString('base64url');
const bearerOf = async (d: Dataset) => `Bearer ${await mintToken(secret, { companyId: d.meta.hotCompanyId, roles: ['bookingsupplier-administrator-write'], sub: 'bench', expiresIn: '2h' })}`;
const requests = { full: requestsFor(operations, datasets.full.meta, await bearerOf(datasets.full)), small: requestsFor(operations, datasets.small.meta, await bearerOf(datasets.small)) };

const children: Child[] = [];
const start = async (child: Promise<Child>) => {
  children.push(await child);
  return children[children.length - 1];
};
const databases: BenchDatabase[] = [];
const dropDatabases = () => Promise.all(databases.splice(0).map((d) => d.drop())).then(() => {});
const forgetCleanup = cleanUpIfInterrupted(dropDatabases);
try {
  const urls: PerEngine<{ full: string; small: string }> = { sqlite: { full: runCopy(datasets.full, 'full'), small: runCopy(datasets.small, 'small') } };
  let postgresReport: PostgresReport = { skipped: 'skipped' in postgres ? postgres.skipped : '' };
  let pgFull: BenchDatabase | undefined;
  if ('server' in postgres) {
    const [full, small] = [await loadIntoPostgres(postgres.server, datasets.full), await loadIntoPostgres(postgres.server, datasets.small)];
    databases.push(full, small);
    pgFull = full;
    log(`PostgreSQL databases ${full.name} (loaded in ${(full.loadMs / 1000).toFixed(1)} s) and ${small.name} (${(small.loadMs / 1000).toFixed(1)} s)`);
    urls.postgres = { full: full.url, small: small.url };
    postgresReport = { server: redacted(postgres.server), version: postgresVersion, from: postgres.from, loadMs: { full: full.loadMs, small: small.loadMs } };
  }
  const engines = enginesOf(urls);
  /** A fresh copy of the full-scale data on `e`: an SQLite file, or a PostgreSQL database copied from the loaded one while nothing is connected to it. */
  const fullCopy = async (e: Engine, name: string): Promise<string> => {
    if (e === 'sqlite' || !('server' in postgres)) return runCopy(datasets.full, name);
    const database = await copyDatabase(postgres.server, pgFull!);
    databases.push(database);
    return database.url;
  };
  // The compared build's copies, made now: PostgreSQL copies only a database nothing is connected to.
  const compareCopies = compared ? await eachEngine(engines, async (e) => {
    const url = await fullCopy(e, 'compare');
    const forgotten = await forgetNewerMigrations(url, compared.dir);
    if (forgotten.length > 0) log(`the compared build's ${ENGINE_LABEL[e]} copy forgets the newer migration(s) ${forgotten.join(', ')}`);
    return { url, forgotten };
  }) : undefined;

  // Recorded before the servers start, on the data they will serve: in-process calls of each operation.
  const counted = await eachEngine(engines, (e) => countOperationStatements(urls[e]!.full, secret, operations, requests.full));
  const statements = new Map(operations.map((op) => [op.id, mapEngines(engines, (e) => counted[e]!.get(op.id)!)]));
  for (const op of operations) log(`statements ${op.id.padEnd(28)} ${engines.map((e) => `${e} ${statements.get(op.id)![e]!.statements}`).join(', ')}`);

  const servers = await eachEngine(engines, async (e) => {
    const pair = { full: await start(startApi(root, command, urls[e]!.full, secret)), small: await start(startApi(root, command, urls[e]!.small, secret)) };
    log(`API on ${ENGINE_LABEL[e]} up in ${pair.full.startupMs.toFixed(0)} ms (full), ${pair.small.startupMs.toFixed(0)} ms (small)`);
    return pair;
  });
  const recorded = await eachEngine(engines, async (e) => {
    const [atFull, atSmall] = [await recordAnswers(servers[e]!.full.url, operations, requests.full), await recordAnswers(servers[e]!.small.url, operations, requests.small)];
    for (const op of operations) {
      for (const [scale, a] of [['full', atFull.get(op.id)!], ['small', atSmall.get(op.id)!]] as const) {
        if (!a.ok) log(`WARNING ${op.id} on ${e} at ${scale} scale answered ${a.status}, expected ${op.status}: ${snippet(a)}`);
      }
    }
    return atFull;
  });
  // What holds on SQLite holds on PostgreSQL: the same rows give the same read answers.
  const differingReads = recorded.postgres
    ? operations.filter((op) => op.kind === 'read' && recorded.sqlite.get(op.id)!.bodyBase64 !== recorded.postgres!.get(op.id)!.bodyBase64).map((op) => op.label)
    : [];
  if (differingReads.length > 0) log(`WARNING read answers differ between the engines: ${differingReads.join(', ')}`);

  // The bare baselines send SQLite's answers again: the reads are PostgreSQL's too (checked
  // above); a write's answer describes what it created, which may differ in a timestamp.
  const routesFile = join(options.work, 'baseline-routes.json');
  writeFileSync(routesFile, JSON.stringify(operations.map((op) => ({ path: `/${op.id}`, ...recorded.sqlite.get(op.id)! }))));
  const compare = compared && compareCopies ? await eachEngine(engines, (e) => start(startApi(compared.dir, compared.command, compareCopies[e]!.url, secret))) : undefined;
  const fastify = await start(startBaseline(root, 'baselines.ts', ['fastify', routesFile]));
  const node = await start(startBaseline(root, 'baselines.ts', ['node', routesFile]));
  // The bare SQL baseline replays each engine's own statements on that engine's full-scale data.
  const sql = await eachEngine(engines, (e) => {
    const file = join(options.work, `baseline-sql-${e}.json`);
    writeFileSync(file, JSON.stringify(operations.map((op): SqlRoute => ({ path: `/${op.id}`, write: op.kind === 'write', variants: statements.get(op.id)![e]!.variants.map(bareStatements) }))));
    return start(startBaseline(root, 'baseline-sql.ts', [file, urls[e]!.full]));
  });

  const samples = await measureRounds({ engines: servers, fastify, node, sql, ...(compare ? { compare } : {}) }, operations, requests, { ...options, log });
  const facts = (child: Child) => ({ startupMs: child.startupMs, peakRssKb: peakRssOf(child.pid) ?? 0 });
  const serverFacts = mapEngines(engines, (e) => ({ full: facts(servers[e]!.full), small: facts(servers[e]!.small) }));
  // On the same full-scale servers, once their HTTP-only peak RSS is read above.
  const mcpOps = options.mcp ? mcpOperations(operations) : [];
  const mcp = mcpOps.length > 0
    ? await eachEngine(engines, (e) => measureMcp({ ...options, log, server: servers[e]!.full, databaseUrl: urls[e]!.full, meta: datasets.full.meta, operations: mcpOps, requests: requests.full }))
    : undefined;
  const keys = keyMeasured(operations)
    ? await eachEngine(engines, (e) => measureKeys({ ...options, log, server: servers[e]!.full, operations, requests: requests.full }))
    : undefined;
  const tracingOps = options.tracing ? tracingOperations(operations) : [];
  const tracing = tracingOps.length > 0
    ? await eachEngine(engines, (e) => measureTracing({ ...options, log, root, command, secret, server: servers[e]!.full, databaseUrl: urls[e]!.full, operations: tracingOps, requests: requests.full }))
    : undefined;
  await Promise.all(children.splice(0).map((c) => c.stop()));

  // Two copies of the full-scale data per engine, made now that nothing is connected to it.
  let webhooks: PerEngine<WebhookResult> | undefined;
  if (options.webhooks) {
    const request = OPERATIONS.find((op) => op.id === WEBHOOK_OPERATION)!.request(datasets.full.meta, await bearerOf(datasets.full));
    webhooks = await eachEngine(engines, async (e) => {
      const databasesOf = { off: await fullCopy(e, 'webhook-off'), on: await fullCopy(e, 'webhook-on') };
      log(`webhooks on ${ENGINE_LABEL[e]}: ${WEBHOOK_OPERATION} without and with delivery, on copies ${Object.values(databasesOf).map((url) => new URL(url).pathname.split('/').pop()).join(' and ')}`);
      return measureWebhooks({ ...options, root, command, secret, databases: databasesOf, meta: datasets.full.meta, request, log, profileDir: join(options.work, 'profiles', `${e}-webhooks`) });
    });
  }

  const summaries = new Map(operations.map((op) => [op.id, summarize(op, mapEngines(engines, (e) => recorded[e]!.get(op.id)!), samples.get(op.id)!)]));
  const webhookChecks = webhooks ? webhookTargets(webhooks) : [];
  const checks = [
    ...checkTargets(operations, summaries, samples, mapEngines(engines, (e) => serverFacts[e]!.full)), ...webhookChecks, ...(mcp ? mcpTargets(mcp) : []), ...(keys ? keyTargets(keys) : []),
    ...(compare ? compareTargets(operations, samples, engines) : []),
  ];
  log(`targets: ${engines.map((e) => `${e} ${checks.filter((c) => c.engine === e && c.met).length} of ${checks.filter((c) => c.engine === e).length}`).join(', ')} met; profiling the misses`);
  const profiles = await profileMisses(checks, {
    root, command, secret, dir: join(options.work, 'profiles'), hotCompanyId: datasets.full.meta.hotCompanyId,
    // SQLite: a fresh copy per profile; PostgreSQL: its full-scale database, dropped after the profiles.
    database: (e) => (e === 'sqlite' ? runCopy(datasets.full, 'profile') : urls[e]?.full),
    requests: requests.full, connections: options.connections, duration: options.duration, max: options.maxProfiles, log,
  });
  await dropDatabases();
  // The webhook targets' misses are explained by the delivering server's profile, taken in their measurement.
  for (const e of engines) {
    const missed = webhookChecks.filter((c) => c.engine === e && !c.met);
    const result = webhooks?.[e];
    if (!result || missed.length === 0 || profiles.length >= options.maxProfiles) continue;
    profiles.push({
      engine: e, subject: `${result.operation} with deliveries, under load and until delivered`, targets: missed.map((c) => `${c.target} (${c.subject}: ${c.value})`),
      ...(result.profile ? { summary: result.profile } : { error: result.profileError ?? 'not taken' }),
    });
  }

  const { connections, duration, rounds, warmup, seed } = options;
  const report: ReportInput = {
    date: new Date(), command: commandLine(argv, postgres), wallSeconds: (performance.now() - began) / 1000, load: { start: loadAtStart, end: loadAverage() },
    settings: { connections, duration, rounds, warmup, seed }, server: command, ...datasets, servers: serverFacts, postgres: postgresReport,
    ops: [...summaries.values()], statements, differingReads, checks, profiles, ...(webhooks ? { webhooks } : {}), ...(mcp ? { mcp } : {}), ...(keys ? { keys } : {}), ...(tracing ? { tracing } : {}),
    ...(compared && compareCopies ? { compare: { revision: options.compare!, commit: compared.commit, samples, forgotten: mapEngines(engines, (e) => compareCopies[e]!.forgotten) } } : {}),
  };
  const markdown = resultsMarkdown(report);
  const resultsFile = join(options.out, 'results.md');
  writeFileSync(resultsFile, markdown);
  // Everything measured, for tools and the smoke test; the recorded bodies and statements left out.
  const json = (key: string, value: unknown) => (key === 'variants' || key === 'bodyBase64' ? undefined : value instanceof Map ? Object.fromEntries(value) : value);
  writeFileSync(join(options.work, 'results.json'), `${JSON.stringify({ ...report, machine: machineFacts(), samples }, json, 2)}\n`);
  console.log(markdown);
  log(`wrote ${resultsFile} in ${((performance.now() - began) / 1000).toFixed(0)} s`);
} finally {
  await Promise.all(children.map((c) => c.stop()));
  copies.forEach(removeCopy);
  await dropDatabases();
  forgetCleanup();
}
