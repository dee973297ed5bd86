import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runLoad, type LoadResult } from './load.js';
import { ENGINE_LABEL, enginesOf, type MeasureOptions, type PerEngine } from './measure.js';
import type { Operation, OpRequest } from './operations.js';
import { startApi, type Child, type ServerCommand } from './servers.js';
import { summarizeTurns } from './summary.js';
import { markdownTable, n0, turnColumns } from './tables.js';

// What tracing costs (docs/decisions.md, "Traces"). Off, the server loads nothing of the
// OpenTelemetry SDK: each request and SQL statement asks one variable and goes on, so the
// API measured above is the "off" figure (`--compare` with a build from before tracing
// measures what that check costs). On: a second server on the same data, with
// OTEL_EXPORTER_OTLP_ENDPOINT naming a sink in this process (http/protobuf, every trace
// sampled, as the SDK does by default), measured in turn with the usual one on one read and
// one write.

const MEASURED = ['PrintoutFirstPage', 'CreateRebateCodeTransaction'];

export type TracingSide = 'off' | 'on';
export type TracingRound = Record<TracingSide, LoadResult>;

export interface TracingResult {
  operations: Array<{ id: string; label: string; rounds: TracingRound[] }>;
  /** what the traced server exported to the sink */
  exports: { requests: number; bytes: number };
}

export interface TracingSettings extends MeasureOptions {
  root: string;
  command: ServerCommand;
  secret: string;
  /** the usual server (tracing off), and the database it serves */
  server: Pick<Child, 'url' | 'pid'>;
  databaseUrl: string;
  operations: Operation[];
  requests: Map<string, OpRequest>;
}

/** The operations of `selected` the tracing measurement has (`--only` narrows it as it narrows the rounds). */
export const tracingOperations = (selected: Operation[]) => selected.filter((op) => MEASURED.includes(op.id));

/** An OTLP/HTTP sink on 127.0.0.1: takes every export, answers 200 at once, counts them. */
async function startSink() {
  const exports = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    exports.requests++;
    req.on('data', (chunk: Buffer) => (exports.bytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export async function measureTracing(s: TracingSettings): Promise<TracingResult> {
  const sink = await startSink();
  const traced = await startApi(s.root, s.command, s.databaseUrl, s.secret, {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'booking-bench' },
  });
  try {
    const servers: Record<TracingSide, Pick<Child, 'url' | 'pid'>> = { off: s.server, on: traced };
    const run = (op: Operation, side: TracingSide, duration: number, n: number) =>
      runLoad(servers[side].url, s.requests.get(op.id)!, { connections: s.connections, duration, expectStatus: op.status, seed: `${s.seed}:tracing:${op.id}:${n}`, cpuPid: servers[side].pid });
    // Each round swaps which server goes first, so neither always follows the other's load.
    const round = async (n: number, duration: number): Promise<TracingRound[]> => {
      const rounds: TracingRound[] = [];
      for (const op of s.operations) {
        const result = {} as TracingRound;
        for (const side of n % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const)) result[side] = await run(op, side, duration, n);
        rounds.push(result);
      }
      return rounds;
    };
    // The traced server starts cold: it first gets the load the usual one had in the rounds above.
    for (const op of s.operations) await run(op, 'on', s.warmup + s.rounds * s.duration, 0);
    const operations = s.operations.map((op) => ({ id: op.id, label: op.label, rounds: [] as TracingRound[] }));
    for (let n = 1; n <= s.rounds; n++) {
      const measured = await round(n, s.duration);
      measured.forEach((r, i) => operations[i].rounds.push(r));
      s.log(`tracing round ${n}/${s.rounds} ` + operations.map((o, i) => `${o.id} ${(['off', 'on'] as const).map((side) => `${side} ${measured[i][side].rps.toFixed(0)} rps ${(measured[i][side].cpuUsPerRequest ?? NaN).toFixed(0)} µs`).join(', ')}`).join(' | '));
    }
    // Stopped first: a stopping server sends the spans it still holds.
    await traced.stop();
    return { operations, exports: { ...sink.exports } };
  } finally {
    await traced.stop();
    await sink.close();
  }
}

/** An operation's medians over the rounds, each side, and the median of the per-round on / off CPU ratios. */
function summarizeTracing(rounds: TracingRound[]) {
  const { base: off, other: on, cpuRatio, unexpected } = summarizeTurns(rounds, 'off', 'on');
  return { off, on, cpuRatio, unexpected };
}

export function tracingMarkdown(results: PerEngine<TracingResult> | undefined): string[] {
  if (!results) return ['### Tracing', '', 'Not measured (--tracing off, or --only named none of its operations).', ''];
  const engines = enginesOf(results);
  const rows = engines.flatMap((engine) => results[engine]!.operations.map((o) => ({ engine, o, s: summarizeTracing(o.rounds) })));
  type Row = (typeof rows)[number];
  return [
    '### Tracing',
    '',
    'Off is the API as measured above: with no OTLP endpoint set it loads nothing of the OpenTelemetry SDK, and each request and SQL ' +
      'statement only asks whether tracing is on (`--compare` with a build from before tracing measures that). On is a second server on the same ' +
      'full-scale data exporting every trace (http/protobuf) to a sink in the bench process: a server span per request and a span per SQL statement. ' +
      'Started cold, it first gets the load the usual one had in the rounds above; then the two are measured in turn, each round swapping which ' +
      'goes first. CPU per request as above (the server process, the exporter included).',
    '',
    ...markdownTable<Row>([
      { title: 'Engine', cell: (r) => ENGINE_LABEL[r.engine] },
      { title: 'Operation', cell: (r) => `${r.o.label}${r.s.unexpected === 0 ? '' : ' ⚠'}` },
      ...turnColumns<Row>(['off', 'on'], (r) => [r.s.off, r.s.on], { title: 'on / off CPU', of: (r) => r.s.cpuRatio }),
    ], rows),
    '',
    `Exported by the traced servers: ${engines.map((e) => `${ENGINE_LABEL[e]} ${n0(results[e]!.exports.requests)} requests, ${n0(results[e]!.exports.bytes / 1024)} KiB`).join('; ')}.`,
    ...(rows.some((r) => r.s.unexpected > 0) ? ['', '⚠ some answers were not the expected status.'] : []),
    '',
  ];
}
