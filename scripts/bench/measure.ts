import type { RecordedAnswer } from './baseline-routes.js';
import type { BenchMeta } from './bulk.js';
import { runLoad, type LoadResult } from './load.js';
import type { Operation, OpRequest } from './operations.js';

/** One round of one operation: the API at full scale, the two ceilings, the API at the small scale. */
export interface Sample {
  api: LoadResult;
  fastify: LoadResult;
  node: LoadResult;
  small: LoadResult;
  /** the API built from --compare's revision, at full scale */
  compare?: LoadResult;
}

export interface Answer {
  status: number;
  contentType: string;
  bytes: number;
  /** the answer had the operation's expected status */
  ok: boolean;
  /** the start of an unexpected answer, to explain it */
  snippet?: string;
}

export interface OpResult {
  op: Operation;
  answer: Answer;
  samples: Sample[];
}

export interface Targets {
  api: { url: string; pid: number };
  small: { url: string; pid: number };
  fastify: { url: string };
  node: { url: string };
  compare?: { url: string; pid: number };
}

/** Sends each operation once and keeps its answer: checked, and replayed by the baselines. */
export async function recordAnswers(url: string, ops: Operation[], requests: Map<string, OpRequest>): Promise<{ answers: Map<string, Answer>; routes: RecordedAnswer[] }> {
  const answers = new Map<string, Answer>();
  const routes: RecordedAnswer[] = [];
  for (const op of ops) {
    const { method, path, headers, body } = requests.get(op.id)!;
    const response = await fetch(url + path, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    const ok = response.status === op.status;
    answers.set(op.id, { status: response.status, contentType, bytes: bytes.length, ok, ...(ok ? {} : { snippet: bytes.toString('utf8', 0, 300) }) });
    routes.push({ path: `/${op.id}`, status: response.status, contentType, bodyBase64: bytes.toString('base64') });
  }
  return { answers, routes };
}

export interface MeasureOptions {
  connections: number;
  duration: number;
  rounds: number;
  warmup: number;
  seed: string;
  log: (line: string) => void;
}

/**
 * Warms every server up on every operation, then runs `rounds` rounds; in each, for each
 * operation in turn: API (full scale), bare Fastify, bare node:http, API (small scale).
 * Alternating this way spreads any drift of the machine evenly over all four.
 */
export async function measureRounds(
  targets: Targets,
  ops: Operation[],
  fullRequests: Map<string, OpRequest>,
  smallRequests: Map<string, OpRequest>,
  options: MeasureOptions,
): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(ops.map((op) => [op.id, []]));
  const base = { connections: options.connections, seed: options.seed };
  const baseline = (op: Operation, request: OpRequest): OpRequest => ({ method: request.method, path: `/${op.id}`, headers: request.headers, ...(request.body ? { body: request.body } : {}) });
  const four = async (op: Operation, duration: number, round: number): Promise<Sample> => {
    const request = fullRequests.get(op.id)!;
    const settings = { ...base, duration, expectStatus: op.status, seed: `${options.seed}:${op.id}:${round}` };
    const api = await runLoad(targets.api.url, request, { ...settings, rssPid: targets.api.pid });
    const fastify = await runLoad(targets.fastify.url, baseline(op, request), settings);
    const node = await runLoad(targets.node.url, baseline(op, request), settings);
    const small = await runLoad(targets.small.url, smallRequests.get(op.id)!, { ...settings, rssPid: targets.small.pid });
    const compare = targets.compare ? await runLoad(targets.compare.url, request, { ...settings, rssPid: targets.compare.pid }) : undefined;
    return { api, fastify, node, small, ...(compare ? { compare } : {}) };
  };
  if (options.warmup > 0) {
    options.log(`warm-up: ${options.warmup} s per operation and server`);
    for (const op of ops) await four(op, options.warmup, 0);
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const op of ops) {
      const sample = await four(op, options.duration, round);
      samples.get(op.id)!.push(sample);
      options.log(
        `round ${round}/${options.rounds} ${op.id.padEnd(28)} api ${sample.api.rps.toFixed(0).padStart(6)} rps p99 ${sample.api.p99.toFixed(2)} ms | ` +
          `fastify ${sample.fastify.rps.toFixed(0).padStart(6)} | node ${sample.node.rps.toFixed(0).padStart(6)} | small ${sample.small.rps.toFixed(0).padStart(6)} rps p99 ${sample.small.p99.toFixed(2)} ms` +
          (sample.compare ? ` | compared ${sample.compare.rps.toFixed(0).padStart(6)} rps p99 ${sample.compare.p99.toFixed(2)} ms` : '') +
          (sample.api.unexpected + sample.small.unexpected > 0 ? `  (unexpected answers: ${sample.api.unexpected}+${sample.small.unexpected})` : ''),
      );
    }
  }
  return samples;
}

export function requestsFor(ops: Operation[], meta: BenchMeta, bearer: string): Map<string, OpRequest> {
  return new Map(ops.map((op) => [op.id, op.request(meta, bearer)]));
}
