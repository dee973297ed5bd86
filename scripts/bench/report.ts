import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { NODE_FLAGS } from '../node-flags.mjs';
import type { Dataset } from './dataset.js';
import { keyMarkdown, type KeyResult } from './idempotency.js';
import { mcpMarkdown, type McpResult } from './mcp.js';
import { ENGINE_LABEL, enginesOf, type Answer, type Engine, type PerEngine, type Sample } from './measure.js';
import type { ProfileReport } from './profiles.js';
import type { ServerCommand } from './servers.js';
import { tracingMarkdown, type TracingResult } from './tracing.js';
import type { CountedCall } from './statements.js';
import { compareMet, median, summarizeCompare, TARGETS, type OpSummary, type TargetCheck } from './summary.js';
import { markdownTable, mib, n0, n2, pct, perEngine, times, turnColumns, type Column } from './tables.js';
import { webhookMarkdown } from './webhook-report.js';
import type { WebhookResult } from './webhooks.js';

/** PostgreSQL as the run met it: where and how the data got there, or why it was not measured. */
export type PostgresReport = { server: string; version: string; from: string; loadMs: { full: number; small: number } } | { skipped: string };

export interface ReportInput {
  date: Date;
  /** how the run was started, as a reader would type it */
  command: string;
  wallSeconds: number;
  /** 1-minute load average when the run began and ended: other work on the machine shows here */
  load: { start: number; end: number };
  settings: { connections: number; duration: number; rounds: number; warmup: number; seed: string };
  server: ServerCommand;
  full: Dataset;
  small: Dataset;
  /** per engine and scale: spawn → first answered request (ms), and VmHWM of the API process over the run (kB) */
  servers: PerEngine<Record<'full' | 'small', { startupMs: number; peakRssKb: number }>>;
  postgres: PostgresReport;
  ops: OpSummary[];
  /** statements of one call of each operation, counted in-process, per engine */
  statements: Map<string, PerEngine<CountedCall>>;
  /** read operations whose answer differed between the engines */
  differingReads: string[];
  checks: TargetCheck[];
  profiles: ProfileReport[];
  /** the webhook measurement, per engine (absent with --webhooks off) */
  webhooks?: PerEngine<WebhookResult>;
  /** the MCP measurement, per engine (absent with --mcp off) */
  mcp?: PerEngine<McpResult>;
  /** what an Idempotency-Key costs, per engine (absent when --only left out its operations) */
  keys?: PerEngine<KeyResult>;
  /** what tracing costs, per engine (absent with --tracing off) */
  tracing?: PerEngine<TracingResult>;
  /** --compare's revision and commit, measured in `samples` on each engine; the migrations its copies forget */
  compare?: { revision: string; commit: string; samples: Map<string, Sample[]>; forgotten: PerEngine<string[]> };
}

export const loadAverage = () => loadavg()[0];

export function machineFacts() {
  const cpu = cpus();
  return { cores: cpu.length, cpu: cpu[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${type()} ${release()}`, node: process.version };
}

const counts = ({ meta: m }: Dataset) =>
  `${m.counts.companies} companies, ${m.counts.mcpUsage} MCP usage rows, ${m.counts.rebateCodes} rebate codes, ${m.counts.bookings} bookings, ` +
  `${m.counts.printouts} printouts, ${m.counts.customers} customers; the measured company holds ${m.hot.printouts} printouts and ${m.hot.mcpRows} MCP rows`;
/** The start of an unexpected answer, to explain it. */
export const snippet = (answer: Answer) => Buffer.from(answer.bodyBase64, 'base64').toString('utf8', 0, 300).replace(/\s+/g, ' ');
const warn = (o: OpSummary, e: Engine) => (o.engines[e]!.answer.ok && o.engines[e]!.unexpected === 0 ? '' : ' ⚠');
const operation: Column<OpSummary> = { title: 'Operation', cell: (o) => o.label };

/** The whole of results.md: this run alone (git keeps the earlier ones). */
export function resultsMarkdown(input: ReportInput): string {
  const m = machineFacts();
  const { settings: s, full, small, postgres } = input;
  const engines = enginesOf(input.servers);
  const both = engines.length > 1;
  const names = engines.map((e) => ENGINE_LABEL[e]).join(' and ');
  const started = input.date.toISOString();
  const lines = [
    '# Benchmark results',
    '',
    'Written by `npm run bench`, which replaces this file with its run: earlier runs are in its git history. A run without',
    'PostgreSQL reports SQLite alone. Absolute figures depend on the machine and on what else ran on it; the ratios measured',
    'within one run (against the bare baselines, between the engines) are what compare across runs.',
    '',
    `## Run of ${started.slice(0, 10)} ${started.slice(11, 16)} UTC: ${names}`,
    '',
    `\`${input.command}\` (whole run ${n0(input.wallSeconds)} s). Figures are medians over ${s.rounds} round(s).`,
    '',
    '### Machine and settings',
    '',
    `- Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; all traffic on 127.0.0.1, load generator (autocannon)${both ? ' and PostgreSQL' : ''} on the same cores. 1-minute load average ${input.load.start.toFixed(2)} at the start, ${input.load.end.toFixed(2)} at the end.`,
    `- Server: ${input.server.kind === 'dist' ? `\`node ${NODE_FLAGS.join(' ')} dist/server.js\` (the build \`npm start\` runs)` : `\`node ${NODE_FLAGS.join(' ')} --import tsx src/server.ts\``}, PORT=0, LOG_LEVEL=warn, rate limits off, no demo data, no webhook deliveries (WEBHOOK_DELIVERY=false) but in the webhook measurement.${input.server.note ? ` ${input.server.note.split('\n')[0]}` : ''}`,
    `- Full scale ${full.meta.scale}: ${counts(full)}. ${full.cached ? 'SQLite file reused from the cache' : `SQLite file generated in ${n0(full.meta.generationMs / 1000)} s`} (seed \`${s.seed}\`).`,
    `- Small scale ${small.meta.scale}: ${counts(small)}.`,
    'server' in postgres
      ? `- PostgreSQL ${postgres.version} at ${postgres.server} (from ${postgres.from}): the same rows, written by the same generator through Kysely into a fresh database per scale ` +
        `(${n0(postgres.loadMs.full / 1000)} s at full scale, ${n0(postgres.loadMs.small / 1000)} s at the small one, with migrations, identity sync and ANALYZE), dropped at the end. The API keeps its pool of 10 connections.`
      : `- **PostgreSQL was not measured**: ${postgres.skipped}.`,
    `- Each measurement: ${s.connections} connections for ${s.duration} s after a ${s.warmup} s warm-up; per round and operation the API at full scale on ${names}, bare Fastify, bare node:http, the bare SQL baseline on each engine and the API at the small scale run one after another, so drift of the machine reaches them all alike. Ratios are the medians of the per-round ratios.`,
    '- Baselines answer the operation\'s own recorded response (SQLite\'s: same bytes, status and content type) on one route: Fastify with nothing registered, and `node:http`.',
    ...(both ? [`- Read answers on the two engines: ${input.differingReads.length === 0 ? 'byte for byte the same' : `**differ** for ${input.differingReads.join(', ')}`}.`] : []),
    s.rounds > 1
      ? `- Noise: the round-to-round spread of the API's req/s ((max − min) / median, per operation) has a median of ${engines.map((e) => `${pct(median(input.ops.map((o) => o.engines[e]!.spread)))} on ${ENGINE_LABEL[e]}`).join(' and ')}; differences smaller than that are not findings.`
      : '- Noise: one round only, so how much the figures move from round to round is not known.',
    '',
    '### Throughput',
    '',
    ...markdownTable<OpSummary>([
      operation,
      { title: 'Kind', cell: (o) => o.kind },
      { title: 'Status', cell: (o) => `${o.engines.sqlite.answer.status}${engines.map((e) => warn(o, e)).find(Boolean) ?? ''}` },
      { title: 'Body bytes', right: true, cell: (o) => n0(o.engines.sqlite.answer.bytes) },
      ...perEngine<OpSummary>(engines, 'req/s', (o, e) => n0(o.engines[e]!.rps)),
      ...(both ? [{ title: 'PostgreSQL / SQLite', right: true, cell: (o: OpSummary) => times(o.postgresOverSqlite ?? NaN) }] : []),
      { title: 'Fastify req/s', right: true, cell: (o) => n0(o.fastifyRps) },
      { title: 'node req/s', right: true, cell: (o) => n0(o.nodeRps) },
      ...perEngine<OpSummary>(engines, '/ Fastify', (o, e) => pct(o.engines[e]!.ratioFastify)),
      ...perEngine<OpSummary>(engines, '/ node', (o, e) => pct(o.engines[e]!.ratioNode)),
    ], input.ops),
    '',
    '### CPU per request',
    '',
    'CPU time (user + system, from /proc) of each server process over a measurement, divided by the requests it answered: ' +
      'the API; bare Fastify answering the recorded bytes; and the bare SQL baseline (`scripts/bench/baseline-sql.ts`), bare Fastify ' +
      'running the very statements the API ran for the request (recorded in-process) through the driver, each prepared once, a ' +
      "write's in one transaction, with their rows serialized by fast-json-stringify: the work no implementation avoids. The " +
      "database server's own CPU is not in any figure. Statements: those of one call (the request the load sends first, transaction " +
      'control included), counted in-process through Kysely\'s log; test/store/round-trips.test.ts holds every success path to a budget.',
    '',
    ...markdownTable<OpSummary>([
      operation,
      ...perEngine<OpSummary>(engines, 'statements', (o, e) => {
        const call = input.statements.get(o.id)?.[e];
        return call ? `${call.statements}${call.ok ? '' : ` (answered ${call.status} ⚠)`}` : '–';
      }),
      ...perEngine<OpSummary>(engines, 'API µs', (o, e) => n0(o.engines[e]!.cpuUs)),
      { title: 'Fastify µs', right: true, cell: (o) => n0(o.fastifyCpuUs) },
      ...perEngine<OpSummary>(engines, 'bare SQL µs', (o, e) => n0(o.engines[e]!.bareSqlCpuUs)),
      ...perEngine<OpSummary>(engines, 'API / bare SQL', (o, e) => times(o.engines[e]!.cpuRatio)),
    ], input.ops),
    '',
    '### Latency and memory',
    '',
    ...markdownTable<OpSummary>([
      operation,
      ...perEngine<OpSummary>(engines, 'p50 ms', (o, e) => n2(o.engines[e]!.p50)),
      ...perEngine<OpSummary>(engines, 'p99 ms', (o, e) => n2(o.engines[e]!.p99)),
      ...perEngine<OpSummary>(engines, 'p99 ms, small scale', (o, e) => n2(o.engines[e]!.smallP99)),
      ...perEngine<OpSummary>(engines, 'p99 growth', (o, e) => times(o.engines[e]!.growth)),
    ], input.ops),
    '',
    "Start-up (spawn to the first answered request) and peak RSS of the API process (VmHWM over the whole run; the PostgreSQL server's own memory is not in it): " +
      engines.map((e) => {
        const { full: f, small: sm } = input.servers[e]!;
        return `${ENGINE_LABEL[e]} ${n2(f.startupMs / 1000)} s and ${mib(f.peakRssKb)} MiB at full scale, ${n2(sm.startupMs / 1000)} s and ${mib(sm.peakRssKb)} MiB at small scale`;
      }).join('; ') + '.',
    ...input.ops.flatMap((o) => engines.filter((e) => warn(o, e)).map((e) => {
      const a = o.engines[e]!;
      return `\n⚠ ${o.label} on ${ENGINE_LABEL[e]}: ${a.answer.ok ? `${a.unexpected} unexpected answers under load` : `answered ${a.answer.status} instead of the expected status: \`${snippet(a.answer).slice(0, 200)}\``}`;
    })),
    '',
    ...(input.webhooks ? webhookMarkdown(input.webhooks) : ['### Webhook deliveries', '', 'Not measured (--webhooks off).', '']),
    ...mcpMarkdown(input.mcp),
    ...keyMarkdown(input.keys),
    ...tracingMarkdown(input.tracing),
    '### Targets',
    '',
    ...targetsMarkdown(input.checks, engines),
    ...profilesMarkdown(input.profiles),
    ...(input.compare ? compareMarkdown(input.compare, input.ops) : []),
  ];
  return `${lines.join('\n')}\n`;
}

function targetsMarkdown(checks: TargetCheck[], engines: Engine[]): string[] {
  type Row = Partial<Record<Engine, TargetCheck>>;
  const rows = new Map<string, Row>();
  for (const check of checks) {
    const key = `${check.target}\u0000${check.subject}`;
    rows.set(key, { ...rows.get(key), [check.engine]: check });
  }
  const first = (row: Row) => (row.sqlite ?? row.postgres)!;
  return [
    ...markdownTable<Row>([
      { title: 'Target', cell: (row) => first(row).target },
      { title: 'Subject', cell: (row) => first(row).subject },
      ...perEngine<Row>(engines, '', (row, e) => (row[e] ? `${row[e].value}, ${row[e].met ? 'met' : '**missed**'}` : '–'), false),
    ], [...rows.values()]),
    '',
    engines.map((e) => `${ENGINE_LABEL[e]}: ${checks.filter((c) => c.engine === e && c.met).length} of ${checks.filter((c) => c.engine === e).length} met.`).join(' '),
  ];
}

function profilesMarkdown(profiles: ProfileReport[]): string[] {
  if (profiles.length === 0) return [];
  const lines = ['', '### CPU profiles of the missed targets', '', 'Self time of the server process under the same load (`node --cpu-prof`), busy time only; locations mapped from dist/ to src/ through the source maps. On PostgreSQL part of the work is the database server\'s, which no profile of the API shows.'];
  for (const p of profiles) {
    lines.push('', `#### ${p.subject}, ${ENGINE_LABEL[p.engine]}`, '', `Explains: ${p.targets.join('; ')}.`, '');
    if (!p.summary) {
      lines.push(`Profile not taken: ${p.error ?? 'unknown error'}.`);
      continue;
    }
    lines.push(`${n0(p.summary.totalMs)} ms sampled, ${pct(p.summary.idleShare)} idle.`, '', '| Self ms | Share | Function | Location |', '|---:|---:|---|---|');
    for (const f of p.summary.functions) lines.push(`| ${n0(f.selfMs)} | ${pct(f.share)} | \`${f.name}\` | ${f.location} |`);
    lines.push('', `By area: ${p.summary.areas.map((a) => `${a.area} ${pct(a.share)}`).join(', ')}.`);
  }
  return lines;
}

/** Per engine and operation: this build against --compare's, measured in the same rounds, and the CPU target. */
export function compareMarkdown({ revision, commit, samples, forgotten }: NonNullable<ReportInput['compare']>, ops: OpSummary[]): string[] {
  const engines = enginesOf(forgotten);
  const rows = engines.flatMap((engine) => ops.map((o) => ({ engine, o, s: summarizeCompare(samples.get(o.id)!, engine) })));
  type Row = (typeof rows)[number];
  const forgetting = engines.filter((e) => forgotten[e]!.length > 0);
  return [
    '',
    `### Against ${revision} (${commit.slice(0, 12)}), measured in the same rounds`,
    '',
    `Its build serves its own copy of each engine's full-scale data and is measured last in each round and operation, on ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}. ` +
      `CPU per request as above (the server process); the ratio is the median of the per-round ratios, and the target is ≤ ${TARGETS.compareCpu}×.` +
      (forgetting.length > 0
        ? ` Its copies forget the migration(s) it does not know (${forgetting.map((e) => `${ENGINE_LABEL[e]}: ${forgotten[e]!.join(', ')}`).join('; ')}), which only add what it never reads, so that it runs on the same rows.`
        : ''),
    '',
    ...markdownTable<Row>([
      { title: 'Engine', cell: (r) => ENGINE_LABEL[r.engine] },
      { title: 'Operation', cell: (r) => `${r.o.label}${r.s.unexpected === 0 ? '' : ' ⚠'}` },
      ...turnColumns<Row>(['This build', 'Compared'], (r) => [r.s.other, r.s.base], { title: 'CPU this / compared', of: (r) => r.s.cpuRatio }),
      { title: `≤ ${TARGETS.compareCpu}×`, cell: (r) => (compareMet(r.s) ? 'met' : '**missed**') },
    ], rows),
  ];
}
