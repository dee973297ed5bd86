import type { Answer, Sample } from './measure.js';
import type { Operation } from './operations.js';

export const TARGETS = { read: 0.6, write: 0.4, csv: 0.8, growth: 1.5, rssMiB: 200, startupMs: 2000 } as const;

export interface OpSummary {
  id: string;
  label: string;
  kind: 'read' | 'write';
  answer: Answer;
  rps: number;
  fastifyRps: number;
  nodeRps: number;
  /** medians of the per-round ratios (each round's three runs are neighbours in time) */
  ratioFastify: number;
  ratioNode: number;
  p50: number;
  p99: number;
  smallRps: number;
  smallP99: number;
  /** p99 at full scale / p99 at the small scale */
  growth: number;
  /** highest VmRSS sampled while this operation ran (full scale), kB */
  peakRssKb: number;
  /** answers with another status than expected, socket errors and timeouts (all rounds, both scales) */
  unexpected: number;
}

export interface TargetCheck {
  target: string;
  subject: string;
  value: string;
  met: boolean;
  /** what a CPU profile should look at when missed: an operation id or 'startup' */
  profile: string;
}

export const median = (values: number[]): number => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export function summarize(op: Operation, answer: Answer, samples: Sample[]): OpSummary {
  const m = (pick: (s: Sample) => number) => median(samples.map(pick));
  const p99 = m((s) => s.api.p99);
  const smallP99 = m((s) => s.small.p99);
  return {
    id: op.id, label: op.label, kind: op.kind, answer,
    rps: m((s) => s.api.rps), fastifyRps: m((s) => s.fastify.rps), nodeRps: m((s) => s.node.rps),
    ratioFastify: m((s) => s.api.rps / s.fastify.rps), ratioNode: m((s) => s.api.rps / s.node.rps),
    p50: m((s) => s.api.p50), p99, smallRps: m((s) => s.small.rps), smallP99, growth: p99 / smallP99,
    peakRssKb: Math.max(0, ...samples.map((s) => s.api.peakRssKb ?? 0)),
    unexpected: samples.reduce((n, s) => n + s.api.unexpected + s.small.unexpected, 0),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** Every target of the issue, met or missed, with what to profile when missed. */
export function checkTargets(
  ops: Operation[],
  summaries: Map<string, OpSummary>,
  samples: Map<string, Sample[]>,
  peakRssKb: number,
  startupMs: number,
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const op of ops) {
    const s = summaries.get(op.id)!;
    const broken = !s.answer.ok || s.unexpected > 0 ? ` (unexpected answers: ${s.answer.ok ? s.unexpected : `status ${s.answer.status}`})` : '';
    const goal = TARGETS[op.kind];
    checks.push({
      target: `${op.kind === 'read' ? 'Reads' : 'Writes'} ≥ ${pct(goal)} of bare Fastify`, subject: op.label,
      value: `${pct(s.ratioFastify)}${broken}`, met: !broken && s.ratioFastify >= goal, profile: op.id,
    });
    if (op.jsonOf) {
      const json = samples.get(op.jsonOf)!;
      const ratio = median(samples.get(op.id)!.map((csv, i) => csv.api.rps / json[i].api.rps));
      checks.push({ target: `CSV ≥ ${pct(TARGETS.csv)} of the same operation in JSON`, subject: op.label, value: pct(ratio), met: ratio >= TARGETS.csv, profile: op.id });
    }
    if (op.growthTarget) {
      checks.push({
        target: `p99 at full scale ≤ ${TARGETS.growth}× the small scale`, subject: op.label,
        value: `${s.growth.toFixed(2)}× (${s.smallP99.toFixed(2)} → ${s.p99.toFixed(2)} ms)`, met: s.growth <= TARGETS.growth, profile: op.id,
      });
    }
  }
  const heaviest = [...summaries.values()].sort((a, b) => b.peakRssKb - a.peakRssKb)[0];
  checks.push({
    target: `Peak RSS under load < ${TARGETS.rssMiB} MiB`, subject: 'API server, full scale (VmHWM)',
    value: `${(peakRssKb / 1024).toFixed(0)} MiB`, met: peakRssKb / 1024 < TARGETS.rssMiB, profile: heaviest?.id ?? 'startup',
  });
  checks.push({ target: `Start-up to the first answered request < ${TARGETS.startupMs / 1000} s`, subject: 'API server, full scale', value: `${(startupMs / 1000).toFixed(2)} s`, met: startupMs < TARGETS.startupMs, profile: 'startup' });
  return checks;
}
