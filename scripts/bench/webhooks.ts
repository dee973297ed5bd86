import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.js';
import { importData } from '../../src/store/import.js';
import { newWebhookSecret } from '../../src/webhooks/secret.js';
import type { BenchMeta } from './bulk.js';
import { runLoad, runPaced, type LoadResult } from './load.js';
import type { MeasureOptions } from './measure.js';
import type { OpRequest } from './operations.js';
import { startReceiver, type Receiver } from './receiver.js';
import { startApi, type Child, type ServerCommand } from './servers.js';
import { median } from './summary.js';

// The product's requirement on webhooks: "a delivery adds no more than 10% to the latency of
// the write that caused it: the write returns before the delivery is made." One write, two
// servers on two copies of the same data, measured in the same rounds: the baseline does not
// deliver but still records the event (its company has an endpoint subscribed to it, and the
// recording is part of the write), the other delivers every event to a receiver in this
// process. Then a few writes one at a time, each timed against its delivery.

/** The measured write: it can be repeated under load, and each one records an event. */
export const WEBHOOK_OPERATION = 'CreateRebateCodeTransaction';
export const WEBHOOK_EVENT = 'rebatecode.transaction.created';
/**
 * The steady load, as a share of what the baseline answers at full load: light, so that
 * what it shows is what a delivery does to the write that caused it, not to the server's
 * capacity (full load shows that).
 */
export const STEADY_SHARE = 0.1;
/** A steady run lasts long enough for this many writes (a p99 of fewer is the maximum), up to 4 × --duration. */
export const STEADY_MIN_REQUESTS = 200;
/** Writes sent one at a time, each waited for until its delivery arrives. */
export const ORDER_CHECKS = 20;
const ENDPOINT_ID = 'wh_bench';
/** No delivery for this long after a run: the worker (polling every second) has nothing left. */
const QUIET_MS = 3000;
const DRAIN_LIMIT_MS = 60_000;

export type Side = 'off' | 'on';
export interface WebhookRound {
  full: Record<Side, LoadResult>;
  steady: Record<Side, LoadResult>;
}

/** A write sent alone to the delivering server, and its delivery. */
export interface OrderCheck {
  /** the write's own latency, ms */
  answerMs: number;
  /** delivery arrival − answer arrival, ms (negative: the delivery came first); NaN when none came within 10 s */
  lagMs: number;
  /** the delivery's data is the write's answer */
  sameData: boolean;
}

/** What the delivering server's writes became, counted after it stopped. */
export interface DeliveryCount {
  /** 2xx answers to writes sent to it (warm-up, rounds and the order checks) */
  answered: number;
  /** rows the writes added (rebate code transactions) */
  committed: number;
  /** events in the outbox for the endpoint */
  recorded: number;
  /** deliveries that reached the receiver, and their distinct webhook-ids */
  received: number;
  distinct: number;
  duplicates: number;
  /** recorded events never received, and received ids the outbox does not hold */
  missing: number;
  unknown: number;
  badSignatures: number;
  /** the outbox's rows by status */
  statuses: Record<string, number>;
  /** the baseline: writes committed, events recorded, and deliveries that reached the receiver (must be none) */
  baselineCommitted: number;
  baselineRecorded: number;
  baselineReceived: number;
  /** longest wait after a run until the last delivery arrived, ms */
  drainMs: number;
}

export interface WebhookResult {
  operation: string;
  event: string;
  /** the steady load: writes per second, and seconds per run */
  rate: number;
  steadySeconds: number;
  rounds: WebhookRound[];
  order: OrderCheck[];
  deliveries: DeliveryCount;
}

/** The settings of the other measurements, and where this one runs. */
export interface WebhookSettings extends MeasureOptions {
  root: string;
  command: ServerCommand;
  /** the JWT secret the servers check */
  secret: string;
  /** two copies of the same data set */
  databases: Record<Side, string>;
  meta: BenchMeta;
  request: OpRequest;
}

const PATHS: Record<Side, string> = { off: '/baseline', on: '/delivered' };

/** Gives the hot company an endpoint subscribed to the event, through the import file format (no save-time address check). */
async function prepare(databaseUrl: string, meta: BenchMeta, url: string, secret: string): Promise<number> {
  const store = await openStore(databaseUrl);
  try {
    await importData(store, { WebhookEndpoints: [{ CompanyId: meta.hotCompanyId, Id: ENDPOINT_ID, Url: url, EventTypes: [WEBHOOK_EVENT], Secret: secret }] });
    return await committedWrites(store);
  } finally {
    await store.close();
  }
}

const committedWrites = async (store: Awaited<ReturnType<typeof openStore>>) =>
  Number((await store.db.selectFrom('rebate_code_transactions').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);

export async function measureWebhooks(s: WebhookSettings): Promise<WebhookResult> {
  const endpointSecret = newWebhookSecret();
  const receiver = await startReceiver({ [PATHS.off]: endpointSecret, [PATHS.on]: endpointSecret });
  const servers: Partial<Record<Side, Child>> = {};
  try {
    const before = {
      off: await prepare(s.databases.off, s.meta, receiver.url + PATHS.off, endpointSecret),
      on: await prepare(s.databases.on, s.meta, receiver.url + PATHS.on, endpointSecret),
    };
    servers.off = await startApi(s.root, s.command, s.databases.off, s.secret);
    servers.on = await startApi(s.root, s.command, s.databases.on, s.secret, { env: { WEBHOOK_DELIVERY: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    const sent = { answered: 0, drainMs: 0 };
    const measure = async (side: Side, run: (url: string) => Promise<LoadResult>): Promise<LoadResult> => {
      const result = await run(servers[side]!.url);
      if (side === 'on') {
        sent.answered += answered2xx(result);
        sent.drainMs = Math.max(sent.drainMs, await drain(receiver, sent.answered));
      }
      return result;
    };
    const expectStatus = 200;
    const full = (side: Side, duration: number, round: number) =>
      measure(side, (url) => runLoad(url, s.request, { connections: s.connections, duration, expectStatus, seed: `${s.seed}:webhooks:${round}` }));
    // Each round swaps which server goes first, so neither always follows the other's load.
    const inTurn = async <T>(round: number, one: (side: Side) => Promise<T>): Promise<Record<Side, T>> => {
      const order: Side[] = round % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
      const results = {} as Record<Side, T>;
      for (const side of order) results[side] = await one(side);
      return results;
    };
    if (s.warmup > 0) await inTurn(1, (side) => full(side, s.warmup, 0));
    const fullRounds: Array<Record<Side, LoadResult>> = [];
    for (let round = 1; round <= s.rounds; round++) {
      fullRounds.push(await inTurn(round, (side) => full(side, s.duration, round)));
      s.log(`webhooks round ${round}/${s.rounds} full load: ${describe(fullRounds[round - 1])}`);
    }
    const rate = Math.max(1, Math.round(STEADY_SHARE * median(fullRounds.map((r) => r.off.rps))));
    const duration = Math.min(4 * s.duration, Math.max(s.duration, STEADY_MIN_REQUESTS / rate));
    const steadyRounds: Array<Record<Side, LoadResult>> = [];
    for (let round = 1; round <= s.rounds; round++) {
      steadyRounds.push(await inTurn(round, (side) =>
        measure(side, (url) => runPaced(url, s.request, { rate, connections: s.connections, duration, expectStatus, seed: `${s.seed}:webhooks:steady:${round}` }))));
      s.log(`webhooks round ${round}/${s.rounds} at ${rate} req/s: ${describe(steadyRounds[round - 1])}`);
    }
    const order = await orderChecks(servers.on.url, s.request, receiver);
    sent.answered += order.length;
    await settle(s.databases.on);
    await Promise.all([servers.off.stop(), servers.on.stop()]);
    const deliveries = await count(s.databases, receiver, before, sent);
    s.log(`webhooks: ${JSON.stringify(deliveries)}`);
    return {
      operation: WEBHOOK_OPERATION, event: WEBHOOK_EVENT, rate, steadySeconds: duration,
      rounds: fullRounds.map((f, i) => ({ full: f, steady: steadyRounds[i] })),
      order, deliveries,
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await receiver.close();
  }
}

const answered2xx = (result: LoadResult) => Object.entries(result.statuses).reduce((n, [status, count]) => n + (status.startsWith('2') ? count : 0), 0);
const describe = (r: Record<Side, LoadResult>) =>
  (['off', 'on'] as const).map((side) => `${side} ${r[side].rps.toFixed(0)} req/s p50 ${r[side].p50.toFixed(2)} p99 ${r[side].p99.toFixed(2)} ms`).join(' | ');

/**
 * Waits until the receiver has had as many distinct deliveries as writes were answered and
 * then no more for a moment (writes still in flight when the load stopped also deliver), or
 * nothing at all for QUIET_MS. Answers how long after the run the last delivery came.
 */
async function drain(receiver: Receiver, answered: number): Promise<number> {
  const ended = performance.now();
  for (;;) {
    const now = performance.now();
    const { distinct, lastAt = ended } = receiver.tally(PATHS.on);
    const last = Math.max(lastAt, ended);
    if ((distinct >= answered && now - last >= 250) || now - last >= QUIET_MS || now - ended >= DRAIN_LIMIT_MS) return Math.max(0, lastAt - ended);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits (up to DRAIN_LIMIT_MS) until the delivering server's outbox has nothing pending, so what is counted after it stops is all it will deliver. */
async function settle(databaseUrl: string): Promise<void> {
  const store = await openStore(databaseUrl);
  try {
    const started = performance.now();
    const pending = async () =>
      Number((await store.db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
    while ((await pending()) > 0 && performance.now() - started < DRAIN_LIMIT_MS) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await store.close();
  }
}

/**
 * One request on node:http, timed when its answer's head arrived: the same moment as the
 * receiver times a delivery (its request's head), both in this process's HTTP parser, so the
 * order of the two is the order in which they reached this process.
 */
function sendTimed(target: string, request: OpRequest): Promise<{ status: number; headAt: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(target, { method: request.method, headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body ?? '')) } }, (response) => {
      const headAt = performance.now();
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headAt, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(request.body);
  });
}

/** Writes sent one at a time to an idle server: when did the answer come, and when the delivery? */
async function orderChecks(url: string, request: OpRequest, receiver: Receiver): Promise<OrderCheck[]> {
  const checks: OrderCheck[] = [];
  for (let i = 0; i < ORDER_CHECKS; i++) {
    const delivered = receiver.next(PATHS.on, 10_000);
    const started = performance.now();
    const response = await sendTimed(url + request.path, request);
    const answeredAt = response.headAt;
    const answer = response.body;
    const arrival = await delivered;
    if (response.status !== 200) throw new Error(`${WEBHOOK_OPERATION} answered ${response.status}: ${answer.slice(0, 300)}`);
    checks.push({
      answerMs: answeredAt - started,
      lagMs: arrival ? arrival.at - answeredAt : NaN,
      sameData: arrival !== undefined && isDeepStrictEqual((JSON.parse(arrival.body) as { data: unknown }).data, JSON.parse(answer)),
    });
  }
  return checks;
}

/** Counts, in each copy once its server has stopped, what the writes left, against what the receiver got. */
async function count(databases: Record<Side, string>, receiver: Receiver, before: Record<Side, number>, sent: { answered: number; drainMs: number }): Promise<DeliveryCount> {
  const outbox = async (side: Side) => {
    const store = await openStore(databases[side]);
    try {
      const rows = await store.db.selectFrom('webhook_deliveries').select(['message_id', 'status']).where('endpoint_id', '=', ENDPOINT_ID).execute();
      return { rows, committed: (await committedWrites(store)) - before[side] };
    } finally {
      await store.close();
    }
  };
  const [off, on] = [await outbox('off'), await outbox('on')];
  const recordedIds = new Set(on.rows.map((r) => r.message_id));
  const receivedIds = receiver.messageIds(PATHS.on);
  const tally = receiver.tally(PATHS.on);
  const statuses: Record<string, number> = {};
  for (const row of on.rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
  return {
    answered: sent.answered,
    committed: on.committed,
    recorded: on.rows.length,
    received: tally.deliveries,
    distinct: tally.distinct,
    duplicates: tally.deliveries - tally.distinct,
    missing: [...recordedIds].filter((id) => !receivedIds.has(id)).length,
    unknown: [...receivedIds].filter((id) => !recordedIds.has(id)).length,
    badSignatures: tally.badSignatures,
    statuses,
    baselineCommitted: off.committed,
    baselineRecorded: off.rows.length,
    baselineReceived: receiver.tally(PATHS.off).deliveries,
    drainMs: sent.drainMs,
  };
}
