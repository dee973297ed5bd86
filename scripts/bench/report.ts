import { cpus, loadavg, release, totalmem, type } from 'node:os';
import type { BenchMeta } from './bulk.js';
import type { ProfileSummary } from './profile.js';
import type { OpSummary, TargetCheck } from './summary.js';

export interface ProfileReport {
  /** what ran while profiling: an operation's label, or start-up */
  subject: string;
  targets: string[];
  summary?: ProfileSummary;
  error?: string;
}

export interface ReportInput {
  date: Date;
  wallSeconds: number;
  /** 1-minute load average when the run began and ended: other work on the machine shows here */
  load: { start: number; end: number };
  settings: { connections: number; duration: number; rounds: number; warmup: number; seed: string };
  server: { kind: string; note?: string };
  full: { meta: BenchMeta; cached: boolean; startupMs: number; peakRssKb: number };
  small: { meta: BenchMeta; cached: boolean; startupMs: number; peakRssKb: number };
  ops: OpSummary[];
  checks: TargetCheck[];
  profiles: ProfileReport[];
}

export const loadAverage = () => loadavg()[0];

export function machineFacts() {
  const cpu = cpus();
  return { cores: cpu.length, cpu: cpu[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), os: `${type()} ${release()}`, node: process.version };
}

const n0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');
const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : '–');
const mib = (kb: number) => `${(kb / 1024).toFixed(0)}`;
const counts = (m: BenchMeta) =>
  `${m.counts.companies} companies, ${m.counts.mcpUsage} MCP usage rows, ${m.counts.rebateCodes} rebate codes, ${m.counts.bookings} bookings, ` +
  `${m.counts.printouts} printouts, ${m.counts.customers} customers; the measured company holds ${m.hot.printouts} printouts and ${m.hot.mcpRows} MCP rows`;

export function resultsMarkdown(input: ReportInput): string {
  const m = machineFacts();
  const { settings: s, full, small } = input;
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${input.date.toISOString()} (whole run ${n0(input.wallSeconds)} s). Figures are medians over ${s.rounds} round(s).`,
    '',
    '## Machine and settings',
    '',
    `- Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; all traffic on 127.0.0.1, load generator (autocannon) on the same cores. 1-minute load average ${input.load.start.toFixed(2)} at the start, ${input.load.end.toFixed(2)} at the end.`,
    `- Server: ${input.server.kind === 'dist' ? '`node dist/server.js` (the build `npm start` runs)' : '`node --import tsx src/server.ts`'}, PORT=0, LOG_LEVEL=warn, rate limits off, no demo data.${input.server.note ? ` ${input.server.note.split('\n')[0]}` : ''}`,
    `- Full scale ${full.meta.scale}: ${counts(full.meta)}. ${full.cached ? 'Reused from the cache' : `Generated in ${n0(full.meta.generationMs / 1000)} s`} (seed \`${s.seed}\`).`,
    `- Small scale ${small.meta.scale}: ${counts(small.meta)}.`,
    `- Each measurement: ${s.connections} connections for ${s.duration} s after a ${s.warmup} s warm-up; per round and operation the API at full scale, bare Fastify, bare node:http and the API at the small scale run one after another, so drift of the machine reaches all four alike. Ratios are the medians of the per-round ratios.`,
    '- Baselines answer the operation\'s own recorded response (same bytes, status and content type) on one route: Fastify with nothing registered, and `node:http`.',
    '',
    '## Results',
    '',
    '| Operation | Kind | Status | Body bytes | API req/s | Fastify req/s | node req/s | API / Fastify | API / node | p50 ms | p99 ms | p99 ms at small scale | p99 growth | Peak RSS MiB |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...input.ops.map((o) =>
      `| ${o.label} | ${o.kind} | ${o.answer.status}${o.answer.ok && o.unexpected === 0 ? '' : ' ⚠'} | ${n0(o.answer.bytes)} | ${n0(o.rps)} | ${n0(o.fastifyRps)} | ${n0(o.nodeRps)} | ` +
      `${pct(o.ratioFastify)} | ${pct(o.ratioNode)} | ${n2(o.p50)} | ${n2(o.p99)} | ${n2(o.smallP99)} | ${n2(o.growth)}× | ${mib(o.peakRssKb)} |`),
    '',
    `Start-up (spawn to the first answered request): ${n2(full.startupMs / 1000)} s at full scale, ${n2(small.startupMs / 1000)} s at small scale. ` +
      `Peak RSS of the API process (VmHWM over the whole run): ${mib(full.peakRssKb)} MiB at full scale, ${mib(small.peakRssKb)} MiB at small scale.`,
    ...input.ops.filter((o) => !o.answer.ok || o.unexpected > 0).map((o) =>
      `\n⚠ ${o.label}: ${o.answer.ok ? `${o.unexpected} unexpected answers under load` : `answered ${o.answer.status} instead of the expected status: \`${(o.answer.snippet ?? '').replace(/\s+/g, ' ').slice(0, 200)}\``}`),
    '',
    '## Targets',
    '',
    '| Target | Subject | Measured | |',
    '|---|---|---|---|',
    ...input.checks.map((c) => `| ${c.target} | ${c.subject} | ${c.value} | ${c.met ? 'met' : '**missed**'} |`),
    '',
    `${input.checks.filter((c) => c.met).length} of ${input.checks.length} met.`,
    '',
    '![Throughput as a share of bare Fastify](ratios.svg)',
    ...profilesMarkdown(input.profiles),
  ];
  return `${lines.join('\n')}\n`;
}

function profilesMarkdown(profiles: ProfileReport[]): string[] {
  if (profiles.length === 0) return [];
  const lines = ['', '## CPU profiles of the missed targets', '', 'Self time of the server process under the same load (`node --cpu-prof`), busy time only; locations mapped from dist/ to src/ through the source maps.'];
  for (const p of profiles) {
    lines.push('', `### ${p.subject}`, '', `Explains: ${p.targets.join('; ')}.`, '');
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
