import { cpus, loadavg, release, totalmem, type } from 'node:os';
import type { BenchMeta } from './bulk.js';
import { RUN_HEADING } from './history.js';
import { ENGINE_LABEL, enginesOf, type Engine, type PerEngine } from './measure.js';
import type { ProfileSummary } from './profile.js';
import type { CountedCall } from './statements.js';
import type { OpSummary, TargetCheck } from './summary.js';
import { markdownTable, mib, n0, n2, pct, perEngine, times, type Column } from './tables.js';
import { webhookMarkdown } from './webhook-report.js';
import type { WebhookResult } from './webhooks.js';

export interface ProfileReport {
  /** what ran while profiling: an operation's label, or start-up */
  subject: string;
  targets: string[];
  summary?: ProfileSummary;
  error?: string;
}

/** PostgreSQL as the run met it: where and how the data got there, or why it was not measured. */
export type PostgresReport =
  | { server: string; version: string; from: string; loadMs: { full: number; small: number } }
  | { skipped: string };

export interface ServerFacts {
  /** spawn → first answered request, ms */
  startupMs: number;
  /** VmHWM of the API process over the whole run, kB */
  peakRssKb: number;
}

export interface ReportInput {
  date: Date;
  /** how the run was started, as a reader would type it */
  command: string;
  wallSeconds: number;
  /** 1-minute load average when the run began and ended: other work on the machine shows here */
  load: { start: number; end: number };
  settings: { connections: number; duration: number; rounds: number; warmup: number; seed: string };
  server: { kind: string; note?: string };
  full: { meta: BenchMeta; cached: boolean };
  small: { meta: BenchMeta; cached: boolean };
  servers: PerEngine<{ full: ServerFacts; small: ServerFacts }>;
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
}

export const loadAverage = () => loadavg()[0];

export function machineFacts() {
  const cpu = cpus();
  return { cores: cpu.length, cpu: cpu[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${type()} ${release()}`, node: process.version };
}

const counts = (m: BenchMeta) =>
  `${m.counts.companies} companies, ${m.counts.mcpUsage} MCP usage rows, ${m.counts.rebateCodes} rebate codes, ${m.counts.bookings} bookings, ` +
  `${m.counts.printouts} printouts, ${m.counts.customers} customers; the measured company holds ${m.hot.printouts} printouts and ${m.hot.mcpRows} MCP rows`;
const warn = (o: OpSummary, e: Engine) => {
  const s = o.engines[e]!;
  return s.answer.ok && s.unexpected === 0 ? '' : ' ⚠';
};
const operation: Column<OpSummary> = { title: 'Operation', cell: (o) => o.label };

/** One run's section of results.md (history.ts puts it on top of the earlier runs). */
export function resultsMarkdown(input: ReportInput): string {
  const m = machineFacts();
  const { settings: s, full, small, postgres } = input;
  const engines = enginesOf(input.servers);
  const both = engines.length > 1;
  const started = input.date.toISOString();
  const lines = [
    `${RUN_HEADING}${started.slice(0, 10)} ${started.slice(11, 16)} UTC: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}`,
    '',
    `\`${input.command}\` (whole run ${n0(input.wallSeconds)} s). Figures are medians over ${s.rounds} round(s).`,
    '',
    '### Machine and settings',
    '',
    `- Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; all traffic on 127.0.0.1, load generator (autocannon)${both ? ' and PostgreSQL' : ''} on the same cores. 1-minute load average ${input.load.start.toFixed(2)} at the start, ${input.load.end.toFixed(2)} at the end.`,
    `- Server: ${input.server.kind === 'dist' ? '`node dist/server.js` (the build `npm start` runs)' : '`node --import tsx src/server.ts`'}, PORT=0, LOG_LEVEL=warn, rate limits off, no demo data, no webhook deliveries (WEBHOOK_DELIVERY=false) but in the webhook measurement.${input.server.note ? ` ${input.server.note.split('\n')[0]}` : ''}`,
    `- Full scale ${full.meta.scale}: ${counts(full.meta)}. ${full.cached ? 'SQLite file reused from the cache' : `SQLite file generated in ${n0(full.meta.generationMs / 1000)} s`} (seed \`${s.seed}\`).`,
    `- Small scale ${small.meta.scale}: ${counts(small.meta)}.`,
    'server' in postgres
      ? `- PostgreSQL ${postgres.version} at ${postgres.server} (from ${postgres.from}): the same rows, written by the same generator through Kysely into a fresh database per scale ` +
        `(${n0(postgres.loadMs.full / 1000)} s at full scale, ${n0(postgres.loadMs.small / 1000)} s at the small one, with migrations, identity sync and ANALYZE), dropped at the end. The API keeps its pool of 10 connections.`
      : `- **PostgreSQL was not measured**: ${postgres.skipped}.`,
    `- Each measurement: ${s.connections} connections for ${s.duration} s after a ${s.warmup} s warm-up; per round and operation the API at full scale on ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, bare Fastify, bare node:http, the bare SQL baseline on each engine and the API at the small scale run one after another, so drift of the machine reaches them all alike. Ratios are the medians of the per-round ratios.`,
    '- Baselines answer the operation\'s own recorded response (SQLite\'s: same bytes, status and content type) on one route: Fastify with nothing registered, and `node:http`.',
    ...(both ? [`- Read answers on the two engines: ${input.differingReads.length === 0 ? 'byte for byte the same' : `**differ** for ${input.differingReads.join(', ')}`}.`] : []),
    s.rounds > 1
      ? `- Noise: the round-to-round spread of the API's req/s ((max − min) / median, per operation) has a median of ${engines.map((e) => `${pct(spreadOf(input.ops, e))} on ${ENGINE_LABEL[e]}`).join(' and ')}; differences smaller than that are not findings.`
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
      'database server\'s own CPU is not in any figure.',
    '',
    ...markdownTable<OpSummary>([
      operation,
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
      ...perEngine<OpSummary>(engines, 'peak RSS MiB', (o, e) => mib(o.engines[e]!.peakRssKb)),
    ], input.ops),
    '',
    `Start-up (spawn to the first answered request) and peak RSS of the API process (VmHWM over the whole run; the PostgreSQL server's own memory is not in it): ` +
      engines.map((e) => {
        const { full: f, small: sm } = input.servers[e]!;
        return `${ENGINE_LABEL[e]} ${n2(f.startupMs / 1000)} s and ${mib(f.peakRssKb)} MiB at full scale, ${n2(sm.startupMs / 1000)} s and ${mib(sm.peakRssKb)} MiB at small scale`;
      }).join('; ') + '.',
    ...input.ops.flatMap((o) => engines.filter((e) => warn(o, e)).map((e) => {
      const a = o.engines[e]!;
      return `\n⚠ ${o.label} on ${ENGINE_LABEL[e]}: ${a.answer.ok ? `${a.unexpected} unexpected answers under load` : `answered ${a.answer.status} instead of the expected status: \`${(a.answer.snippet ?? '').replace(/\s+/g, ' ').slice(0, 200)}\``}`;
    })),
    '',
    ...statementsMarkdown(input.ops, input.statements, engines),
    ...(input.webhooks ? webhookMarkdown(input.webhooks) : ['### Webhook deliveries', '', 'Not measured (--webhooks off).', '']),
    '### Targets',
    '',
    ...targetsMarkdown(input.checks, engines),
    '',
    '![Throughput as a share of bare Fastify](ratios.svg)',
    ...profilesMarkdown(input.profiles),
  ];
  return `${lines.join('\n')}\n`;
}

const spreadOf = (ops: OpSummary[], engine: Engine) => {
  const sorted = ops.map((o) => o.engines[engine]!.spread).filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

function statementsMarkdown(ops: OpSummary[], statements: Map<string, PerEngine<CountedCall>>, engines: Engine[]): string[] {
  return [
    '### Statements per operation',
    '',
    'SQL statements (transaction control included) of one call of each measured operation, the request the load sends first, ' +
      'counted in-process on the full-scale data (the app built on each engine\'s store, called through `app.inject`, Kysely\'s log counting): exact, whatever the load. ' +
      'test/store/round-trips.test.ts holds every success path to at most 3, or to a budget it names with the reason.',
    '',
    ...markdownTable<OpSummary>([
      operation,
      ...perEngine<OpSummary>(engines, 'statements', (o, e) => {
        const call = statements.get(o.id)?.[e];
        return call ? `${call.statements}${call.ok ? '' : ` (answered ${call.status} ⚠)`}` : '–';
      }),
    ], ops),
    '',
  ];
}

function targetsMarkdown(checks: TargetCheck[], engines: Engine[]): string[] {
  const rows = new Map<string, Partial<Record<Engine, TargetCheck>>>();
  for (const check of checks) {
    const key = `${check.target}\u0000${check.subject}`;
    rows.set(key, { ...rows.get(key), [check.engine]: check });
  }
  const verdict = (c: TargetCheck | undefined) => (c ? `${c.value}, ${c.met ? 'met' : '**missed**'}` : '–');
  const first = (row: Partial<Record<Engine, TargetCheck>>) => (row.sqlite ?? row.postgres)!;
  return [
    ...markdownTable<Partial<Record<Engine, TargetCheck>>>([
      { title: 'Target', cell: (row) => first(row).target },
      { title: 'Subject', cell: (row) => first(row).subject },
      ...perEngine<Partial<Record<Engine, TargetCheck>>>(engines, '', (row, e) => verdict(row[e]), false),
    ], [...rows.values()]),
    '',
    engines.map((e) => {
      const of = checks.filter((c) => c.engine === e);
      return `${ENGINE_LABEL[e]}: ${of.filter((c) => c.met).length} of ${of.length} met.`;
    }).join(' '),
  ];
}

function profilesMarkdown(profiles: ProfileReport[]): string[] {
  if (profiles.length === 0) return [];
  const lines = ['', '### CPU profiles of the missed targets on SQLite', '', 'Self time of the server process under the same load (`node --cpu-prof`), busy time only; locations mapped from dist/ to src/ through the source maps.'];
  for (const p of profiles) {
    lines.push('', `#### ${p.subject}`, '', `Explains: ${p.targets.join('; ')}.`, '');
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
