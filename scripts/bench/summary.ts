import { enginesOf, mapEngines, type Answer, type Engine, type PerEngine, type Sample } from './measure.js';
import type { Operation } from './operations.js';

export const TARGETS = {
  read: 0.6, write: 0.4, csv: 0.8, growth: 1.5, rssMiB: 200, startupMs: 2000, delivery: 1.1,
  /** the writes per second a delivering node keeps at full load, as a share of a node that does not deliver */
  deliveryCapacity: 0.75,
  /** the API's CPU per request ÷ the bare SQL baseline's (baseline-sql.ts), reads and writes */
  cpuRead: 1.5, cpuWrite: 2,
  /** the API process's CPU per read on PostgreSQL ÷ on SQLite (the database server aside) */
  cpuPostgres: 1.5,
  /** an MCP tool call's CPU ÷ the same operation's over HTTP (a read on PostgreSQL: mcpCpuPostgresRead), and the peak RSS with MCP in use (mcp.ts) */
  mcpCpu: 3, mcpCpuPostgresRead: 3.5, mcpRssMiB: 280,
  /** a write with a new Idempotency-Key ÷ the same write without one (PostgreSQL: keyedCpuPostgres), and a replay ÷ GetRebateCodeBySign (idempotency.ts) */
  keyedCpu: 1.15, keyedCpuPostgres: 1.25, replayCpu: 1,
  /** this build's CPU per request ÷ the --compare build's, measured in the same rounds */
  compareCpu: 1.05,
} as const;

export interface TargetCheck {
  engine: Engine;
  target: string;
  subject: string;
  value: string;
  met: boolean;
  /** what a CPU profile should look at when missed: an operation id, `mcp:` and an operation id (its tool call), or 'startup'; none for the webhook measurement's */
  profile?: string;
}

export const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * One operation on one engine: medians over the rounds, and of a ratio the median of the
 * per-round ratios (each round's runs are neighbours in time). `growth` is p99 at full scale ÷
 * at the small one; `spread` the round-to-round spread of req/s, (max − min) / median;
 * `unexpected` counts answers with another status, socket errors and timeouts at both scales;
 * CPU figures are per request, µs.
 */
function summarizeEngine(answer: Answer, samples: Sample[], engine: Engine) {
  const of = samples.map((s) => ({ ...s.engines[engine]!, fastify: s.fastify, node: s.node, sql: s.sql[engine]! }));
  const m = (pick: (s: (typeof of)[number]) => number) => median(of.map(pick));
  const rps = m((s) => s.full.rps);
  const [p99, smallP99] = [m((s) => s.full.p99), m((s) => s.small.p99)];
  const cpu = (r: { cpuUsPerRequest?: number }) => r.cpuUsPerRequest ?? NaN;
  return {
    answer, rps, p50: m((s) => s.full.p50), p99, smallP99, growth: p99 / smallP99,
    ratioFastify: m((s) => s.full.rps / s.fastify.rps), ratioNode: m((s) => s.full.rps / s.node.rps),
    cpuUs: m((s) => cpu(s.full)), bareSqlCpuUs: m((s) => cpu(s.sql)), cpuRatio: m((s) => cpu(s.full) / cpu(s.sql)),
    unexpected: of.reduce((n, s) => n + s.full.unexpected + s.small.unexpected, 0),
    spread: (Math.max(...of.map((s) => s.full.rps)) - Math.min(...of.map((s) => s.full.rps))) / rps,
  };
}
export type EngineSummary = ReturnType<typeof summarizeEngine>;
export type OpSummary = ReturnType<typeof summarize>;

/** An operation's figures on every engine measured; `answers` holds each engine's recorded answer. */
export function summarize(op: Operation, answers: PerEngine<Answer>, samples: Sample[]) {
  const engines = mapEngines(enginesOf(answers), (e) => summarizeEngine(answers[e]!, samples, e));
  return {
    id: op.id, label: op.label, kind: op.kind, engines,
    fastifyRps: median(samples.map((s) => s.fastify.rps)), nodeRps: median(samples.map((s) => s.node.rps)),
    fastifyCpuUs: median(samples.map((s) => s.fastify.cpuUsPerRequest ?? NaN)),
    /** the median of the per-round PostgreSQL / SQLite req/s at full scale */
    postgresOverSqlite: engines.postgres ? median(samples.map((s) => s.engines.postgres!.full.rps / s.engines.sqlite.full.rps)) : undefined,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** Every target, met or missed, on each engine measured, with what to profile when missed. */
export function checkTargets(ops: Operation[], summaries: Map<string, OpSummary>, samples: Map<string, Sample[]>, servers: PerEngine<{ peakRssKb: number; startupMs: number }>): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const engine of enginesOf(servers)) {
    const add = (check: Omit<TargetCheck, 'engine'>) => checks.push({ engine, ...check });
    for (const op of ops) {
      const s = summaries.get(op.id)!.engines[engine]!;
      const broken = !s.answer.ok || s.unexpected > 0 ? ` (unexpected answers: ${s.answer.ok ? s.unexpected : `status ${s.answer.status}`})` : '';
      const [goal, cpuGoal] = op.kind === 'read' ? [TARGETS.read, TARGETS.cpuRead] : [TARGETS.write, TARGETS.cpuWrite];
      add({
        target: `${op.kind === 'read' ? 'Reads' : 'Writes'} ≥ ${pct(goal)} of bare Fastify`, subject: op.label,
        value: `${pct(s.ratioFastify)}${broken}`, met: !broken && s.ratioFastify >= goal, profile: op.id,
      });
      add({
        target: `CPU per ${op.kind} ≤ ${cpuGoal}× the bare SQL baseline`, subject: op.label,
        value: `${s.cpuRatio.toFixed(2)}× (${s.cpuUs.toFixed(0)} µs against ${s.bareSqlCpuUs.toFixed(0)} µs)${broken}`, met: !broken && s.cpuRatio <= cpuGoal, profile: op.id,
      });
      if (engine === 'postgres' && op.kind === 'read') {
        const sqlite = summaries.get(op.id)!.engines.sqlite;
        const ratio = s.cpuUs / sqlite.cpuUs;
        add({
          target: `API CPU per read on PostgreSQL ≤ ${TARGETS.cpuPostgres}× on SQLite`, subject: op.label,
          value: `${ratio.toFixed(2)}× (${s.cpuUs.toFixed(0)} µs against ${sqlite.cpuUs.toFixed(0)} µs)`, met: ratio <= TARGETS.cpuPostgres, profile: op.id,
        });
      }
      if (op.jsonOf) {
        const json = samples.get(op.jsonOf)!;
        const ratio = median(samples.get(op.id)!.map((csv, i) => csv.engines[engine]!.full.rps / json[i].engines[engine]!.full.rps));
        add({ target: `CSV ≥ ${pct(TARGETS.csv)} of the same operation in JSON`, subject: op.label, value: pct(ratio), met: ratio >= TARGETS.csv, profile: op.id });
      }
      if (op.growthTarget) {
        add({
          target: `p99 at full scale ≤ ${TARGETS.growth}× the small scale`, subject: op.label,
          value: `${s.growth.toFixed(2)}× (${s.smallP99.toFixed(2)} → ${s.p99.toFixed(2)} ms)`, met: s.growth <= TARGETS.growth, profile: op.id,
        });
      }
    }
    const { peakRssKb, startupMs } = servers[engine]!;
    // Start-up loads the contract and compiles its schemas: most of what the process holds.
    add({
      target: `Peak RSS under load < ${TARGETS.rssMiB} MiB`, subject: 'API server, full scale (VmHWM)',
      value: `${(peakRssKb / 1024).toFixed(0)} MiB`, met: peakRssKb / 1024 < TARGETS.rssMiB, profile: 'startup',
    });
    add({
      target: `Start-up to the first answered request < ${TARGETS.startupMs / 1000} s`, subject: 'API server, full scale',
      value: `${(startupMs / 1000).toFixed(2)} s`, met: startupMs < TARGETS.startupMs, profile: 'startup',
    });
  }
  return checks;
}

/** What a round of a measurement in turns holds of each side: a load result's figures. */
type TurnResult = { rps: number; p50: number; p99: number; cpuUsPerRequest?: number; unexpected: number };

/**
 * Two sides measured in turns, round by round: each side's medians, the median of the
 * per-round CPU ratios of `other` to `base`, and the answers of either with an unexpected status.
 */
export function summarizeTurns<S extends string>(rounds: Array<Record<S, TurnResult>>, base: S, other: S) {
  const of = (side: S, pick: (r: TurnResult) => number | undefined) => median(rounds.map((r) => pick(r[side]) ?? NaN));
  const figures = (side: S) => ({ rps: of(side, (r) => r.rps), p50: of(side, (r) => r.p50), p99: of(side, (r) => r.p99), cpuUs: of(side, (r) => r.cpuUsPerRequest) });
  return {
    base: figures(base),
    other: figures(other),
    cpuRatio: median(rounds.map((r) => (r[other].cpuUsPerRequest ?? NaN) / (r[base].cpuUsPerRequest ?? NaN))),
    unexpected: rounds.reduce((n, r) => n + r[base].unexpected + r[other].unexpected, 0),
  };
}

/** An operation on one engine against the --compare build: this build is `now`, the compared one `then`, round by round. */
export const summarizeCompare = (samples: Sample[], engine: Engine) =>
  summarizeTurns(samples.map((s) => ({ now: s.engines[engine]!.full, then: s.compare![engine]! })), 'then', 'now');

/** The --compare target: every answer as expected, and CPU per request within TARGETS.compareCpu of the compared build's. */
export const compareMet = (s: ReturnType<typeof summarizeCompare>) => s.unexpected === 0 && s.cpuRatio <= TARGETS.compareCpu;

/** Per engine and operation: this build's CPU per request against the --compare build's. */
export function compareTargets(ops: Operation[], samples: Map<string, Sample[]>, engines: Engine[]): TargetCheck[] {
  return engines.flatMap((engine) => ops.map((op): TargetCheck => {
    const s = summarizeCompare(samples.get(op.id)!, engine);
    const broken = s.unexpected > 0 ? ` (unexpected answers: ${s.unexpected})` : '';
    return {
      engine, target: `CPU per request ≤ ${TARGETS.compareCpu}× the compared build's`, subject: op.label,
      value: `${s.cpuRatio.toFixed(2)}× (${s.other.cpuUs.toFixed(0)} µs against ${s.base.cpuUs.toFixed(0)} µs)${broken}`, met: compareMet(s), profile: op.id,
    };
  }));
}
