import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helper.js';
import { METRICS_TOKEN } from './exposition.js';
import { freePort } from '../robustness/server-process.js';
import { PROMETHEUS, needs } from '../needs.js';

// A real Prometheus (Debian's `prometheus` package, as .ci/run installs it) scrapes a node
// listening on 127.0.0.1 with METRICS_TOKEN, and its HTTP API answers the node's request
// counter: the exposition is one Prometheus reads, and the token is what it sends.

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

t.test('Prometheus scrapes a node with the token and answers its request counter', async (t) => {
  const prometheusBin = needs(t, PROMETHEUS);
  if (!prometheusBin) return;

  const api = await buildTestApp(t, { config: { METRICS_TOKEN } });
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const target = `127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  for (let i = 0; i < 3; i++) t.equal((await api.call('GET', '/categories', { as: null })).statusCode, 200);

  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A second job scrapes with a wrong token: the node refuses it, and Prometheus says so (up 0).
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: booking
    authorization: { credentials: ${JSON.stringify(METRICS_TOKEN)} }
    static_configs: [{ targets: [${JSON.stringify(target)}] }]
  - job_name: wrong-token
    authorization: { credentials: "not-the-token" }
    static_configs: [{ targets: [${JSON.stringify(target)}] }]
`,
  );
  const port = await freePort();
  const prometheus = spawn(
    prometheusBin,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  prometheus.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise((resolve) => prometheus.once('exit', resolve));
  t.teardown(async () => {
    prometheus.kill('SIGTERM');
    await exited;
  });

  const query = async (promql: string): Promise<Series[] | undefined> => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data: { result: Series[] } };
      return body.status === 'success' ? body.data.result : undefined;
    } catch {
      return undefined;
    }
  };
  /** The answer to `promql` once it has one (Prometheus scrapes every second), else undefined after 30 s. */
  const answered = async (promql: string) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && prometheus.exitCode === null) {
      const result = await query(promql);
      if (result?.length) return result;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    t.comment(`Prometheus's log:\n${log}`);
    return undefined;
  };

  const found = await answered('http_request_duration_seconds_count{job="booking",operation="CategoryQuery",status_code="200"}');
  if (!found) {
    t.fail('Prometheus did not answer the request counter within 30 s');
    return;
  }
  t.equal(found.length, 1, 'one series');
  t.equal(found[0].value[1], '3', 'the three requests');
  t.equal(found[0].metric.instance, target, 'Prometheus labels the node by instance');

  const summed = await query('sum by (operation) (http_request_duration_seconds_count{job="booking",operation="CategoryQuery"})');
  t.equal(summed?.[0]?.value[1], '3', 'sum() across nodes, here one');
  t.equal((await query('max(webhook_outbox_pending{job="booking"})'))?.[0]?.value[1], '0', 'the outbox, database-wide: max()');
  t.equal((await query('up{job="booking"}'))?.[0]?.value[1], '1', 'scraped');
  t.equal((await answered('up{job="wrong-token"}'))?.[0]?.value[1], '0', 'a wrong token is refused');
});
