import { randomUUID } from 'node:crypto';
import { runLoad, type LoadResult } from './load.js';
import { ENGINE_LABEL, enginesOf, type MeasureOptions, type PerEngine } from './measure.js';
import type { Operation, OpRequest } from './operations.js';
import type { Child } from './servers.js';
import { summarizeTurns, TARGETS, type TargetCheck } from './summary.js';
import { markdownTable, times, turnColumns } from './tables.js';

// What an Idempotency-Key costs (docs/decisions.md, "Retried writes"): the same write with and
// without a new key on each request (the key claimed, the answer stored), and a replay (one
// key, its stored answer sent again) beside the cheapest lookup, GetRebateCodeBySign. Each
// pair is sent in turns to the full-scale server of each engine after the rounds above.

/** The write measured with and without a key, and the read a replay is held against (ids of operations.ts). */
const WRITE = 'CreateRebateCodeTransaction';
const READ = 'GetRebateCodeBySign';

type Pair = { id: 'keyed' | 'replay'; label: string; base: string; other: string };
const PAIRS: Pair[] = [
  { id: 'keyed', label: `${WRITE}, a new key each request`, base: 'without a key', other: 'with a key' },
  { id: 'replay', label: `${WRITE} replayed, against ${READ}`, base: READ, other: 'replay' },
];

export type KeyRound = { base: LoadResult; other: LoadResult };

export interface KeyPairResult extends Pair {
  rounds: KeyRound[];
}

export interface KeyResult {
  pairs: KeyPairResult[];
}

export interface KeySettings extends MeasureOptions {
  server: Pick<Child, 'url' | 'pid'>;
  operations: Operation[];
  /** the operations' HTTP requests, at full scale */
  requests: Map<string, OpRequest>;
}

/** Whether the measurement has what it needs: both operations among those measured (`--only` may leave them out). */
export const keyMeasured = (selected: Operation[]) => [WRITE, READ].every((id) => selected.some((op) => op.id === id));

/** `request` with a new Idempotency-Key on each request sent. */
function keyedRequest(request: OpRequest): OpRequest {
  const { vary } = request;
  return {
    ...request,
    vary: (rng) => ({ ...(vary ? vary(rng) : {}), headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
  };
}

export async function measureKeys(s: KeySettings): Promise<KeyResult> {
  const write = s.requests.get(WRITE)!;
  const read = s.requests.get(READ)!;
  // One key, one body: every request after the first is a replay of its stored answer.
  const { vary: _vary, ...fixed } = write;
  const replay: OpRequest = { ...fixed, headers: { ...fixed.headers, 'idempotency-key': `bench-replay-${randomUUID()}` } };
  const sides: Record<Pair['id'], { base: OpRequest; other: OpRequest }> = {
    keyed: { base: write, other: keyedRequest(write) },
    replay: { base: read, other: replay },
  };
  const run = (request: OpRequest, duration: number, seed: string) =>
    runLoad(s.server.url, request, { connections: s.connections, duration, expectStatus: 200, seed, cpuPid: s.server.pid });
  const round = async (n: number, duration: number): Promise<KeyRound[]> => {
    const rounds: KeyRound[] = [];
    for (const pair of PAIRS) {
      const result = {} as KeyRound;
      // Each round swaps which side goes first, so neither always follows the other's load.
      for (const side of n % 2 === 1 ? (['base', 'other'] as const) : (['other', 'base'] as const)) {
        result[side] = await run(sides[pair.id][side], duration, `${s.seed}:keys:${pair.id}:${n}`);
      }
      rounds.push(result);
    }
    return rounds;
  };
  if (s.warmup > 0) await round(0, s.warmup);
  const results: KeyPairResult[] = PAIRS.map((pair) => ({ ...pair, rounds: [] }));
  for (let n = 1; n <= s.rounds; n++) {
    const measured = await round(n, s.duration);
    measured.forEach((r, i) => results[i].rounds.push(r));
    s.log(`keys round ${n}/${s.rounds} ` + results.map((p, i) => `${p.id} ${(measured[i].other.cpuUsPerRequest ?? NaN).toFixed(0)} µs against ${(measured[i].base.cpuUsPerRequest ?? NaN).toFixed(0)} µs`).join(' | '));
  }
  return { pairs: results };
}

const summarizeKeys = (p: KeyPairResult) => summarizeTurns(p.rounds, 'base', 'other');

/** A keyed write ≤ 1.15× the CPU of the same write without (1.25× on PostgreSQL); a replay no more than the lookup. */
export function keyTargets(results: PerEngine<KeyResult>): TargetCheck[] {
  return enginesOf(results).flatMap((engine) =>
    results[engine]!.pairs.map((p): TargetCheck => {
      const s = summarizeKeys(p);
      const limit = p.id === 'replay' ? TARGETS.replayCpu : engine === 'postgres' ? TARGETS.keyedCpuPostgres : TARGETS.keyedCpu;
      const target = p.id === 'replay'
        ? `CPU per replay ≤ ${TARGETS.replayCpu}× ${READ}`
        : `CPU per keyed write ≤ ${TARGETS.keyedCpu}× the write without a key, ${TARGETS.keyedCpuPostgres}× on PostgreSQL`;
      const broken = s.unexpected > 0 ? ` (unexpected answers: ${s.unexpected})` : '';
      return {
        engine, target, subject: p.label, met: !broken && s.cpuRatio <= limit, profile: WRITE,
        value: `${times(s.cpuRatio)} (${s.other.cpuUs.toFixed(0)} µs against ${s.base.cpuUs.toFixed(0)} µs)${broken}`,
      };
    }),
  );
}

export function keyMarkdown(results: PerEngine<KeyResult> | undefined): string[] {
  if (!results) return ['### Idempotency-Key', '', `Not measured (--only left out ${WRITE} or ${READ}).`, ''];
  const rows = enginesOf(results).flatMap((engine) => results[engine]!.pairs.map((p) => ({ engine, p, s: summarizeKeys(p) })));
  type Row = (typeof rows)[number];
  return [
    '### Idempotency-Key',
    '',
    `${WRITE} (the Increase above) without a key and with a new \`Idempotency-Key\` on each request, and the same write sent again and again ` +
      `with one key (each a replay of its stored answer) beside ${READ}, in turns, to the full-scale server of each engine after the rounds above.`,
    '',
    ...markdownTable<Row>([
      { title: 'Engine', cell: (r) => ENGINE_LABEL[r.engine] },
      { title: 'Measured', cell: (r) => `${r.p.label}${r.s.unexpected === 0 ? '' : ' ⚠'}` },
      ...turnColumns<Row>(['Base', 'Keyed'], (r) => [r.s.base, r.s.other], { title: 'CPU ratio', of: (r) => r.s.cpuRatio }),
    ], rows),
    '',
  ];
}
