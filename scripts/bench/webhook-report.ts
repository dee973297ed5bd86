import { ENGINE_LABEL, enginesOf, type Engine, type PerEngine } from './measure.js';
import { median, TARGETS, type TargetCheck } from './summary.js';
import { markdownTable, n0, n2, pct, times } from './tables.js';
import { ORDER_CHECKS, STEADY_MIN_REQUESTS, STEADY_SHARE, type Side, type WebhookResult, type WebhookRound } from './webhooks.js';

// The webhook measurement in results.md: the write's latency and req/s without and with
// deliveries, what became of every write's event, and its targets.

type Load = 'full' | 'steady';
type Figure = 'p50' | 'p99' | 'rps';

/** One load of the write on one engine: medians over the rounds, and the medians of the per-round ratios (with / without). */
export function summarizeLoad(rounds: WebhookRound[], load: Load) {
  const of = (pick: Figure) => ({ off: median(rounds.map((r) => r[load].off[pick])), on: median(rounds.map((r) => r[load].on[pick])) }) as Record<Side, number>;
  const ratio = (pick: Figure) => median(rounds.map((r) => r[load].on[pick] / r[load].off[pick]));
  return { p50: of('p50'), p99: of('p99'), rps: of('rps'), ratio: { p50: ratio('p50'), p99: ratio('p99'), rps: ratio('rps') } };
}

/** The writes sent alone: how many answered before their delivery arrived, and the median lag. */
function orderSummary(result: WebhookResult) {
  const lags = result.order.map((c) => c.lagMs);
  return {
    checked: result.order.length,
    answeredFirst: lags.filter((lag) => lag > 0).length,
    sameData: result.order.filter((c) => c.sameData).length,
    lagMs: median(lags),
    answerMs: median(result.order.map((c) => c.answerMs)),
  };
}

/** Five targets per engine: latency at full load and at the steady load, capacity, order, and every event delivered. */
export function webhookTargets(results: PerEngine<WebhookResult>): TargetCheck[] {
  return enginesOf(results).flatMap((engine): TargetCheck[] => {
    const result = results[engine]!;
    const latency = (load: Load): TargetCheck => {
      const { ratio } = summarizeLoad(result.rounds, load);
      return {
        engine, target: `A delivery adds ≤ ${Math.round((TARGETS.delivery - 1) * 100)}% to the write's latency`,
        subject: `${result.operation} at ${load === 'full' ? 'full load' : `a light steady load (${pct(STEADY_SHARE)} of full)`}, with / without delivery`,
        value: `p50 ${times(ratio.p50)}, p99 ${times(ratio.p99)}`,
        met: ratio.p50 <= TARGETS.delivery && ratio.p99 <= TARGETS.delivery,
      };
    };
    const order = orderSummary(result);
    const d = result.deliveries;
    const capacity = summarizeLoad(result.rounds, 'full').ratio.rps;
    return [
      latency('full'),
      latency('steady'),
      {
        engine, target: `A delivering node keeps ≥ ${pct(TARGETS.deliveryCapacity)} of the writes`, subject: `${result.operation} at full load, req/s with / without delivery`,
        value: times(capacity), met: capacity >= TARGETS.deliveryCapacity,
      },
      {
        engine, target: 'The write returns before its delivery is made', subject: `${order.checked} writes one at a time`,
        value: `${order.answeredFirst} of ${order.checked}`, met: order.checked > 0 && order.answeredFirst === order.checked,
      },
      {
        engine, target: 'Every write delivered, at least once, signed', subject: `${result.operation} with deliveries`,
        value: `${n0(d.distinct)} of ${n0(d.recorded)} events, ${n0(d.duplicates)} duplicates`,
        met: d.missing === 0 && d.unknown === 0 && d.badSignatures === 0 && d.recorded === d.committed && d.baselineReceived === 0,
      },
    ];
  });
}

export function webhookMarkdown(results: PerEngine<WebhookResult>): string[] {
  const engines = enginesOf(results);
  const first = results[engines[0]]!;
  const rows = engines.flatMap((engine) => (['full', 'steady'] as const).map((load) => ({ engine, load, result: results[engine]!, s: summarizeLoad(results[engine]!.rounds, load) })));
  type Row = (typeof rows)[number];
  const pair = (title: string, pick: Figure, format: (x: number) => string) => [
    { title: `${title} without`, right: true, cell: (r: Row) => format(r.s[pick].off) },
    { title: `${title} with`, right: true, cell: (r: Row) => format(r.s[pick].on) },
    { title: `${title} with / without`, right: true, cell: (r: Row) => times(r.s.ratio[pick]) },
  ];
  const counts = engines.map((engine) => ({ engine, d: results[engine]!.deliveries, o: orderSummary(results[engine]!) }));
  type Counts = (typeof counts)[number];
  const engine = { title: 'Engine', cell: (r: { engine: Engine }) => ENGINE_LABEL[r.engine] };
  return [
    '### Webhook deliveries',
    '',
    `${first.operation} (event \`${first.event}\`) on two servers side by side in the same rounds, each on its own copy of the full-scale data, ` +
      'whose measured company has one endpoint subscribed to the event: without delivery (WEBHOOK_DELIVERY=false; the write still records the event in its transaction), ' +
      'and with delivery (WEBHOOK_DELIVERY=true, the defaults otherwise, to a receiver in the bench process on 127.0.0.1 that answers 200 and checks each signature; ' +
      'it shares its process with the load generator). The rounds alternate which server goes first, and after each run with delivery the bench waits until its outbox ' +
      `has nothing pending, so the next run meets no backlog. Full load: as the other operations (closed loop), which shows what delivering costs the server's capacity. ` +
      `Light steady load: ${pct(STEADY_SHARE)} of the median full-load req/s without delivery, sent at an even pace whatever the answers' pace (open loop, latency counted ` +
      `from when each request was due), for at least ${STEADY_MIN_REQUESTS} writes a run where 4 × --duration allows, ` +
      'which shows what a delivery adds to the write that caused it. Latencies in ms; ratios are medians of the per-round ratios.',
    '',
    ...markdownTable<Row>([
      engine,
      { title: 'Load', cell: (r) => (r.load === 'full' ? 'full load' : `light: ${n0(r.result.rate)} req/s for ${n2(r.result.steadySeconds)} s`) },
      ...pair('p50', 'p50', n2),
      ...pair('p99', 'p99', n2),
      ...pair('req/s', 'rps', n0),
    ], rows),
    '',
    `What became of the delivering server's writes (every run, the warm-up and the ${ORDER_CHECKS} writes sent alone), counted in its database after it stopped, ` +
      'against what the receiver got. Writes still in flight when a closed-loop run stops commit and deliver without their answer being counted, so more are committed than answered.',
    '',
    ...markdownTable<Counts>([
      engine,
      { title: 'Writes answered 2xx', right: true, cell: (c) => n0(c.d.answered) },
      { title: 'Writes committed', right: true, cell: (c) => n0(c.d.committed) },
      { title: 'Events recorded', right: true, cell: (c) => n0(c.d.recorded) },
      { title: 'Deliveries received', right: true, cell: (c) => n0(c.d.received) },
      { title: 'Distinct webhook-ids', right: true, cell: (c) => n0(c.d.distinct) },
      { title: 'Duplicates', right: true, cell: (c) => n0(c.d.duplicates) },
      { title: 'Never received', right: true, cell: (c) => n0(c.d.missing) },
      { title: 'Bad signatures', right: true, cell: (c) => n0(c.d.badSignatures) },
      { title: 'Outbox after', cell: (c) => Object.entries(c.d.statuses).map(([status, n]) => `${n0(n)} ${status}`).join(', ') || '–' },
      { title: 'Longest wait after a run until nothing was pending', right: true, cell: (c) => `${n2(c.d.drainMs / 1000)} s` },
      { title: 'Without delivery: committed / recorded / delivered', cell: (c) => `${n0(c.d.baselineCommitted)} / ${n0(c.d.baselineRecorded)} / ${n0(c.d.baselineReceived)}` },
    ], counts),
    '',
    ...counts.map(({ engine: e, o }) =>
      `${ENGINE_LABEL[e]}, ${o.checked} writes sent one at a time to the idle delivering server: the answer came before the delivery in ${o.answeredFirst} of ${o.checked}, each timed by its head as the bench's process took it in ` +
      `(the delivery a median ${n2(o.lagMs)} ms after the answer, the write itself a median ${n2(o.answerMs)} ms); the delivery's data was the write's answer in ${o.sameData} of ${o.checked}.`),
    '',
  ];
}
