import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { OpRequest } from './operations.js';
import { cpuMsOf } from './proc.js';
import { createRng } from './rng.js';

export interface LoadResult {
  rps: number;
  /** latency percentiles in ms, from every response's own time (autocannon's histogram is whole ms) */
  p50: number;
  p99: number;
  requests: number;
  /** answers whose status was not the expected one, plus socket errors and timeouts */
  unexpected: number;
  statuses: Record<string, number>;
  /** CPU time of `cpuPid`, user + system, per answered request, µs */
  cpuUsPerRequest?: number;
}

interface LoadOptions {
  connections: number;
  duration: number;
  expectStatus: number;
  seed: string;
}

function resultOf(latencies: number[], statuses: Record<string, number>, seconds: number, options: LoadOptions, failures: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const percentile = (p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
  const expected = statuses[String(options.expectStatus)] ?? 0;
  return { rps: latencies.length / seconds, p50: percentile(50), p99: percentile(99), requests: latencies.length, unexpected: latencies.length - expected + failures, statuses };
}

/**
 * Drives `url` with `request` from `connections` keep-alive connections for `duration`
 * seconds (autocannon, a closed loop) and measures throughput and latency. A `vary` request
 * draws its pool member from a seeded generator, so every run sends the same sequence.
 */
export async function runLoad(url: string, request: OpRequest, options: LoadOptions & { cpuPid?: number }): Promise<LoadResult> {
  const rng = createRng(options.seed);
  const { vary, ...fixed } = request;
  const latencies: number[] = [];
  const cpuBefore = options.cpuPid ? cpuMsOf(options.cpuPid) : undefined;
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    timeout: 10,
    // autocannon stops at its next sample tick: 100 ms keeps short runs close to `duration`.
    sampleInt: 100,
    requests: [{ ...fixed, ...(vary ? { setupRequest: (r) => ({ ...r, ...vary(rng) }) } : {}) }],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  const result = await instance;
  const cpuAfter = options.cpuPid ? cpuMsOf(options.cpuPid) : undefined;
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  return {
    ...resultOf(latencies, statuses, result.duration, options, result.errors + result.timeouts),
    ...(cpuBefore !== undefined && cpuAfter !== undefined && latencies.length > 0 ? { cpuUsPerRequest: ((cpuAfter - cpuBefore) * 1000) / latencies.length } : {}),
  };
}

/**
 * Sends `request` at a steady `rate` per second for `duration` seconds over at most
 * `connections` keep-alive connections, whatever the answers' pace (an open loop), and
 * measures each answer from the moment its request was due: a server that falls behind
 * shows it in the latency rather than by being sent less. autocannon's own rate option sends
 * each second's requests in a burst at its start, which measures a queue rather than a steady load.
 */
export async function runPaced(url: string, request: OpRequest, options: LoadOptions & { rate: number }): Promise<LoadResult> {
  const rng = createRng(options.seed);
  const { vary, ...fixed } = request;
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let failures = 0;
  const send = (dueAt: number) => new Promise<void>((resolve) => {
    const { path, body } = { path: fixed.path, body: fixed.body, ...(vary ? vary(rng) : {}) };
    const headers = body === undefined ? fixed.headers : { ...fixed.headers, 'content-length': String(Buffer.byteLength(body)) };
    const sent = httpRequest({ host: target.hostname, port: target.port, method: fixed.method, path, headers, agent, timeout: 10_000 }, (answer) => {
      answer.resume();
      answer.on('end', () => {
        latencies.push(performance.now() - dueAt);
        statuses[String(answer.statusCode)] = (statuses[String(answer.statusCode)] ?? 0) + 1;
        resolve();
      });
    });
    sent.on('timeout', () => sent.destroy(new Error('timed out')));
    sent.on('error', () => { failures++; resolve(); });
    sent.end(body);
  });
  const total = Math.max(1, Math.round(options.rate * options.duration));
  const interval = 1000 / options.rate;
  const started = performance.now();
  const answers: Array<Promise<void>> = [];
  while (answers.length < total) {
    const due = Math.min(total, Math.floor((performance.now() - started) / interval) + 1);
    while (answers.length < due) answers.push(send(started + answers.length * interval));
    await sleep(Math.max(0, started + answers.length * interval - performance.now()));
  }
  await Promise.all(answers);
  agent.destroy();
  return resultOf(latencies, statuses, (performance.now() - started) / 1000, options, failures);
}
