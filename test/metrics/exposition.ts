import type { TestApp } from '../helper.js';

// What the metrics tests share: a scrape of GET /metrics through the contract-checking
// inject, and reading one figure out of Prometheus's text format.

export const METRICS_TOKEN = 'metrics-test-token-0123456789';

/** The exposition of `api`, scraped with the token; throws unless it is answered. */
export async function scrape(api: TestApp): Promise<string> {
  const res = await api.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}: ${res.body}`);
  return res.body;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The sum of the samples named `name` whose labels include `labels` (undefined when there is
 * none), as `sum(name{labels})` would answer it.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

/** The metric names the exposition declares (its `# TYPE` lines). */
export function metricNames(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
}
