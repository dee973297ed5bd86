import type { RecordedAnswer } from './baseline-routes.js';
import type { BenchMeta } from './bulk.js';
import { runLoad, type LoadResult } from './load.js';
import type { Operation, OpRequest } from './operations.js';

/** The storage engines the API is measured on, in the order they are reported. */
export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];
export const ENGINE_LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** Something per engine: SQLite is always measured, PostgreSQL when a server was given. */
export type PerEngine<T> = { sqlite: T; postgres?: T };
export const enginesOf = (of: PerEngine<unknown>): Engine[] => ENGINES.filter((engine) => of[engine] !== undefined);

/** One engine's API in one round: on the full data set and on the small one. */
export interface EngineSample {
  full: LoadResult;
  small: LoadResult;
}

/** One round of one operation: the API on each engine at both scales, and the two ceilings. */
export interface Sample {
  engines: PerEngine<EngineSample>;
  fastify: LoadResult;
  node: LoadResult;
  /** the bare SQL baseline (baseline-sql.ts) on each engine's full-scale data */
  sql: PerEngine<LoadResult>;
  /** the API built from --compare's revision, on SQLite at full scale */
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

interface Server {
  url: string;
  pid: number;
}

export interface Targets {
  engines: PerEngine<{ full: Server; small: Server }>;
  fastify: Server;
  node: Server;
  sql: PerEngine<Server>;
  compare?: Server;
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

const rps = (r: LoadResult) => r.rps.toFixed(0).padStart(6);
const p99 = (r: LoadResult) => `p99 ${r.p99.toFixed(2)} ms`;

/**
 * Warms every server up on every operation, then runs `rounds` rounds; in each, for each
 * operation in turn: the API at full scale on each engine, bare Fastify, bare node:http,
 * the bare SQL baseline on each engine, the API at the small scale on each engine. Alternating this way spreads any drift of the
 * machine evenly over all of them, and puts the engines next to each other in time.
 */
export async function measureRounds(
  targets: Targets,
  ops: Operation[],
  fullRequests: Map<string, OpRequest>,
  smallRequests: Map<string, OpRequest>,
  options: MeasureOptions,
): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(ops.map((op) => [op.id, []]));
  const engines = enginesOf(targets.engines);
  const base = { connections: options.connections, seed: options.seed };
  const baseline = (op: Operation, request: OpRequest): OpRequest => ({ method: request.method, path: `/${op.id}`, headers: request.headers, ...(request.body ? { body: request.body } : {}) });
  const one = async (op: Operation, duration: number, round: number): Promise<Sample> => {
    const request = fullRequests.get(op.id)!;
    const settings = { ...base, duration, expectStatus: op.status, seed: `${options.seed}:${op.id}:${round}` };
    const load = (server: Server, r: OpRequest) => runLoad(server.url, r, { ...settings, rssPid: server.pid });
    const full = new Map<Engine, LoadResult>();
    for (const engine of engines) full.set(engine, await load(targets.engines[engine]!.full, request));
    const fastify = await runLoad(targets.fastify.url, baseline(op, request), { ...settings, cpuPid: targets.fastify.pid });
    const node = await runLoad(targets.node.url, baseline(op, request), { ...settings, cpuPid: targets.node.pid });
    const sql: PerEngine<LoadResult> = { sqlite: await runLoad(targets.sql.sqlite.url, baseline(op, request), { ...settings, cpuPid: targets.sql.sqlite.pid }) };
    if (targets.sql.postgres) sql.postgres = await runLoad(targets.sql.postgres.url, baseline(op, request), { ...settings, cpuPid: targets.sql.postgres.pid });
    const measured: PerEngine<EngineSample> = { sqlite: { full: full.get('sqlite')!, small: await load(targets.engines.sqlite.small, smallRequests.get(op.id)!) } };
    if (targets.engines.postgres) measured.postgres = { full: full.get('postgres')!, small: await load(targets.engines.postgres.small, smallRequests.get(op.id)!) };
    const compare = targets.compare ? await load(targets.compare, request) : undefined;
    return { engines: measured, fastify, node, sql, ...(compare ? { compare } : {}) };
  };
  if (options.warmup > 0) {
    options.log(`warm-up: ${options.warmup} s per operation and server`);
    for (const op of ops) await one(op, options.warmup, 0);
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const op of ops) {
      const sample = await one(op, options.duration, round);
      samples.get(op.id)!.push(sample);
      const unexpected = engines.reduce((n, e) => n + sample.engines[e]!.full.unexpected + sample.engines[e]!.small.unexpected, 0);
      options.log(
        `round ${round}/${options.rounds} ${op.id.padEnd(28)} ` +
          engines.map((e) => `${e} ${rps(sample.engines[e]!.full)} rps ${p99(sample.engines[e]!.full)}`).join(' | ') +
          ` | fastify ${rps(sample.fastify)} | node ${rps(sample.node)} | bare SQL ` +
          engines.map((e) => `${e} ${rps(sample.sql[e]!)}`).join(' ') +
          ' | small ' +
          engines.map((e) => `${e} ${rps(sample.engines[e]!.small)}`).join(' ') +
          (sample.compare ? ` | compared ${rps(sample.compare)} rps ${p99(sample.compare)}` : '') +
          (unexpected > 0 ? `  (unexpected answers: ${unexpected})` : ''),
      );
    }
  }
  return samples;
}

export function requestsFor(ops: Operation[], meta: BenchMeta, bearer: string): Map<string, OpRequest> {
  return new Map(ops.map((op) => [op.id, op.request(meta, bearer)]));
}
