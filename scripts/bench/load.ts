import autocannon from 'autocannon';
import type { OpRequest } from './operations.js';
import { sampleRss } from './proc.js';
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
  /** highest VmRSS of `rssPid` sampled during the run, kB */
  peakRssKb?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Drives `url` with `request` from `connections` keep-alive connections for `duration`
 * seconds and measures throughput and latency. A `vary` request draws its pool member from
 * a seeded generator, so every run sends the same sequence.
 */
export async function runLoad(
  url: string,
  request: OpRequest,
  options: { connections: number; duration: number; expectStatus: number; seed: string; rssPid?: number },
): Promise<LoadResult> {
  const rng = createRng(options.seed);
  const { vary, ...fixed } = request;
  const latencies: number[] = [];
  const rss = options.rssPid ? sampleRss(options.rssPid) : undefined;
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    timeout: 10,
    // autocannon stops at its next sample tick: 100 ms keeps short runs close to `duration`.
    sampleInt: 100,
    requests: [{ ...fixed, ...(vary ? { setupRequest: (r) => ({ ...r, ...vary(rng) }) } : {}) }],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
  });
  const result = await instance;
  const peakRssKb = rss?.stop();
  const sorted = Float64Array.from(latencies).sort();
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const expected = statuses[String(options.expectStatus)] ?? 0;
  return {
    rps: latencies.length / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    requests: latencies.length,
    unexpected: latencies.length - expected + result.errors + result.timeouts,
    statuses,
    ...(peakRssKb !== undefined ? { peakRssKb } : {}),
  };
}
