import type { BenchMeta } from './bulk.js';
import { runLoad, type LoadResult } from './load.js';
import type { Operation, OpRequest } from './operations.js';
import type { Child } from './servers.js';

/** The storage engines the API is measured on, in the order they are reported. */
const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];
export const ENGINE_LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** Something per engine: SQLite is always measured, PostgreSQL when a server was given. */
export type PerEngine<T> = { sqlite: T; postgres?: T };
export const enginesOf = (of: PerEngine<unknown>): Engine[] => ENGINES.filter((engine) => of[engine] !== undefined);

/** `make` for each engine, one after the other. */
export async function eachEngine<T>(engines: Engine[], make: (engine: Engine) => T | Promise<T>): Promise<PerEngine<T>> {
  const result: Partial<Record<Engine, T>> = {};
  for (const engine of engines) result[engine] = await make(engine);
  return result as PerEngine<T>;
}
export const mapEngines = <T>(engines: Engine[], make: (engine: Engine) => T): PerEngine<T> =>
  Object.fromEntries(engines.map((engine) => [engine, make(engine)])) as PerEngine<T>;

/** One round of one operation: the API on each engine at both scales, and the baselines. */
export interface Sample {
  engines: PerEngine<{ full: LoadResult; small: LoadResult }>;
  fastify: LoadResult;
  node: LoadResult;
  /** the bare SQL baseline (baseline-sql.ts) on each engine's full-scale data */
  sql: PerEngine<LoadResult>;
  /** the API built from --compare's revision, on each engine's own copy of the full-scale data */
  compare?: PerEngine<LoadResult>;
}

/** The API's answer to an operation's request: checked, and sent again by the bare baselines (baselines.ts). */
export interface Answer {
  status: number;
  contentType: string;
  bodyBase64: string;
  bytes: number;
  /** the answer had the operation's expected status */
  ok: boolean;
}

type Server = Pick<Child, 'url' | 'pid'>;
export interface Servers {
  engines: PerEngine<{ full: Server; small: Server }>;
  fastify: Server;
  node: Server;
  sql: PerEngine<Server>;
  compare?: PerEngine<Server>;
}

export function requestsFor(ops: Operation[], meta: BenchMeta, bearer: string): Map<string, OpRequest> {
  return new Map(ops.map((op) => [op.id, op.request(meta, bearer)]));
}

/** Sends each operation's request once and keeps the answer. */
export async function recordAnswers(url: string, ops: Operation[], requests: Map<string, OpRequest>): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  for (const op of ops) {
    const { method, path, headers, body } = requests.get(op.id)!;
    const response = await fetch(url + path, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    answers.set(op.id, { status: response.status, contentType, bodyBase64: bytes.toString('base64'), bytes: bytes.length, ok: response.status === op.status });
  }
  return answers;
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
const cpu = (r: LoadResult) => `${(r.cpuUsPerRequest ?? NaN).toFixed(0)} µs`;

/**
 * Warms every server up on every operation, then runs `rounds` rounds; in each, for each
 * operation in turn: the API at full scale on each engine, bare Fastify, bare node:http, the
 * bare SQL baseline on each engine, the API at the small scale on each engine, and the
 * compared build on each engine. Alternating this way spreads any drift of the machine evenly
 * over all of them, and puts the engines next to each other in time.
 */
export async function measureRounds(
  servers: Servers,
  ops: Operation[],
  requests: { full: Map<string, OpRequest>; small: Map<string, OpRequest> },
  options: MeasureOptions,
): Promise<Map<string, Sample[]>> {
  const engines = enginesOf(servers.engines);
  const one = async (op: Operation, duration: number, round: number): Promise<Sample> => {
    const request = requests.full.get(op.id)!;
    const settings = { connections: options.connections, duration, expectStatus: op.status, seed: `${options.seed}:${op.id}:${round}` };
    const api = (server: Server, r: OpRequest) => runLoad(server.url, r, { ...settings, cpuPid: server.pid });
    // The baselines answer every request alike, on the operation's one route.
    const baseline = (server: Server) => api(server, { method: request.method, path: `/${op.id}`, headers: request.headers, ...(request.body ? { body: request.body } : {}) });
    const full = await eachEngine(engines, (e) => api(servers.engines[e]!.full, request));
    const fastify = await baseline(servers.fastify);
    const node = await baseline(servers.node);
    const sql = await eachEngine(engines, (e) => baseline(servers.sql[e]!));
    const small = await eachEngine(engines, (e) => api(servers.engines[e]!.small, requests.small.get(op.id)!));
    const compare = servers.compare ? await eachEngine(engines, (e) => api(servers.compare![e]!, request)) : undefined;
    return { engines: mapEngines(engines, (e) => ({ full: full[e]!, small: small[e]! })), fastify, node, sql, ...(compare ? { compare } : {}) };
  };
  if (options.warmup > 0) {
    options.log(`warm-up: ${options.warmup} s per operation and server`);
    for (const op of ops) await one(op, options.warmup, 0);
  }
  const samples = new Map<string, Sample[]>(ops.map((op) => [op.id, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const op of ops) {
      const s = await one(op, options.duration, round);
      samples.get(op.id)!.push(s);
      const unexpected = engines.reduce((n, e) => n + s.engines[e]!.full.unexpected + s.engines[e]!.small.unexpected, 0);
      options.log(
        `round ${round}/${options.rounds} ${op.id.padEnd(28)} ` +
          engines.map((e) => `${e} ${rps(s.engines[e]!.full)} rps p99 ${s.engines[e]!.full.p99.toFixed(2)} ms`).join(' | ') +
          ` | fastify ${rps(s.fastify)} | node ${rps(s.node)} | bare SQL ${engines.map((e) => `${e} ${rps(s.sql[e]!)}`).join(' ')}` +
          ` | small ${engines.map((e) => `${e} ${rps(s.engines[e]!.small)}`).join(' ')}` +
          (s.compare ? ` | compared ${engines.map((e) => `${e} ${rps(s.compare![e]!)} rps ${cpu(s.compare![e]!)} (this build ${cpu(s.engines[e]!.full)})`).join(' ')}` : '') +
          (unexpected > 0 ? `  (unexpected answers: ${unexpected})` : ''),
      );
    }
  }
  return samples;
}
