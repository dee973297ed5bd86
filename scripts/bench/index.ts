// `npm run bench`: builds (or reuses) seeded data sets at two scales, starts the API server
// on each plus the bare Fastify and node:http baselines, measures the representative
// operations in alternating rounds, checks the targets, profiles the misses, and writes
// results.md and ratios.svg. See options.ts for the flags.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../../src/auth/token.js';
import { ratiosChart } from './chart.js';
import { ensureDataset, type Dataset } from './dataset.js';
import { measureRounds, recordAnswers, requestsFor } from './measure.js';
import { selectOperations } from './operations.js';
import { parseOptions } from './options.js';
import { memoryOf } from './proc.js';
import { profileMisses } from './profiles.js';
import { loadAverage, machineFacts, resultsMarkdown } from './report.js';
import { serverCommand, startApi, startBaseline, type Child } from './servers.js';
import { checkTargets, summarize } from './summary.js';
import { compareMarkdown, prepareCompare } from './compare.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const options = parseOptions(process.argv.slice(2), root);
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
  return file;
}
const removeCopies = () => {
  for (const name of ['full', 'small', 'profile', 'compare']) for (const suffix of ['', '-wal', '-shm']) rmSync(join(options.work, `run-${name}.sqlite${suffix}`), { force: true });
};

const command = serverCommand(root, options.server);
const compared = options.compare ? prepareCompare(root, options.work, options.compare) : undefined;
if (compared) log(`comparing with ${options.compare} (${compared.commit.slice(0, 12)}), built in ${compared.dir}`);
log(`server: ${command.kind}${command.note ? ` (${command.note.split('\n')[0]})` : ''}; machine: ${JSON.stringify(machineFacts())}`);
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
try {
  const api = await startApi(root, command, runCopy(full, 'full'), secret);
  children.push(api);
  const smallApi = await startApi(root, command, runCopy(small, 'small'), secret);
  children.push(smallApi);
  log(`API up in ${api.startupMs.toFixed(0)} ms (full), ${smallApi.startupMs.toFixed(0)} ms (small)`);

  const { answers, routes } = await recordAnswers(api.url, operations, fullRequests);
  const { answers: smallAnswers } = await recordAnswers(smallApi.url, operations, smallRequests);
  for (const op of operations) {
    for (const [scale, a] of [['full', answers.get(op.id)!], ['small', smallAnswers.get(op.id)!]] as const) {
      if (!a.ok) log(`WARNING ${op.id} at ${scale} scale answered ${a.status}, expected ${op.status}: ${a.snippet}`);
    }
  }
  const routesFile = join(options.work, 'baseline-routes.json');
  writeFileSync(routesFile, JSON.stringify(routes));
  const before = compared ? await startApi(compared.dir, compared.command, runCopy(full, 'compare'), secret) : undefined;
  if (before) children.push(before);
  const fastify = await startBaseline(root, 'fastify', routesFile);
  children.push(fastify);
  const node = await startBaseline(root, 'node', routesFile);
  children.push(node);

  const samples = await measureRounds(
    { api, small: smallApi, fastify, node, ...(before ? { compare: before } : {}) },
    operations,
    fullRequests,
    smallRequests,
    { connections: options.connections, duration: options.duration, rounds: options.rounds, warmup: options.warmup, seed: options.seed, log },
  );
  const peakRssKb = memoryOf(api.pid)?.hwmKb ?? 0;
  const smallPeakRssKb = memoryOf(smallApi.pid)?.hwmKb ?? 0;
  await Promise.all(children.splice(0).map((c) => c.stop()));

  const summaries = new Map(operations.map((op) => [op.id, summarize(op, answers.get(op.id)!, samples.get(op.id)!)]));
  const checks = checkTargets(operations, summaries, samples, peakRssKb, api.startupMs);
  log(`targets: ${checks.filter((c) => c.met).length} of ${checks.length} met; profiling the misses`);
  const profiles = await profileMisses(checks, {
    root, command, secret, dir: join(options.work, 'profiles'), freshDb: () => runCopy(full, 'profile'),
    requests: fullRequests, connections: options.connections, duration: options.duration, max: options.maxProfiles, log,
  });

  const ops = [...summaries.values()];
  const date = new Date();
  const settings = { connections: options.connections, duration: options.duration, rounds: options.rounds, warmup: options.warmup, seed: options.seed };
  const report = {
    date, wallSeconds: (performance.now() - began) / 1000, load: { start: loadAtStart, end: loadAverage() }, settings, server: command,
    full: { meta: full.meta, cached: full.cached, startupMs: api.startupMs, peakRssKb },
    small: { meta: small.meta, cached: small.cached, startupMs: smallApi.startupMs, peakRssKb: smallPeakRssKb },
    ops, checks, profiles,
  };
  const markdown = resultsMarkdown(report) + (compared ? `\n${compareMarkdown(options.compare!, compared.commit, samples)}` : '');
  writeFileSync(join(options.out, 'results.md'), markdown);
  writeFileSync(join(options.out, 'ratios.svg'), ratiosChart(ops, `${date.toISOString().slice(0, 10)} · ${machineFacts().cores} cores · Node ${process.version} · scale ${options.scale} · ${options.connections} connections × ${options.duration} s × ${options.rounds} rounds`));
  writeFileSync(join(options.work, 'results.json'), `${JSON.stringify({ ...report, machine: machineFacts(), samples: Object.fromEntries(samples) }, null, 2)}\n`);
  console.log(markdown);
  log(`wrote ${join(options.out, 'results.md')} and ratios.svg in ${((performance.now() - began) / 1000).toFixed(0)} s`);
} finally {
  await Promise.all(children.map((c) => c.stop()));
  removeCopies();
}
