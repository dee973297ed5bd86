import { request as httpRequest } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { importData } from '../../src/import/import.js';
import { openStore, type Store } from '../../src/store/db.js';
import { newWebhookSecret } from '../../src/webhooks/secret.js';
import type { BenchMeta } from './bulk.js';
import { runLoad, runPaced, type LoadResult } from './load.js';
import type { MeasureOptions } from './measure.js';
import type { OpRequest } from './operations.js';
import { profileServer, type ProfileSummary } from './profiles.js';
import { startReceiver, type Receiver } from './receiver.js';
import { startApi, type Child, type ServerCommand } from './servers.js';
import { median } from './summary.js';

// The requirement on webhooks: a delivery adds no more than 10% to the latency of the write
// that caused it, and the write returns before the delivery is made. One write, two servers
// on two copies of the same data, measured in the same rounds: the baseline does not deliver
// but still records the event (its company has an endpoint subscribed to it, and recording is
// part of the write), the other delivers every event to a receiver in this process. Then a
// few writes one at a time, each timed against its delivery.

/** The measured write: it can be repeated under load, and each one records an event. */
export const WEBHOOK_OPERATION = 'CreateRebateCodeTransaction';
const WEBHOOK_EVENT = 'rebatecode.transaction.created';
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
/** The longest wait for a delivering server's outbox to empty. */
const DRAIN_LIMIT_MS = 60_000;
const PATHS = { off: '/baseline', on: '/delivered' } as const;

export type Side = keyof typeof PATHS;
export type WebhookRound = Record<'full' | 'steady', Record<Side, LoadResult>>;

/** A write sent alone to the delivering server: its latency, how long after its answer its delivery came (NaN: none within 10 s), and whether the delivery carried the answer. */
export interface OrderCheck {
  answerMs: number;
  lagMs: number;
  sameData: boolean;
}

export type DeliveryCount = Awaited<ReturnType<typeof count>>;

export interface WebhookResult {
  operation: string;
  event: string;
  /** the steady load: writes per second, and seconds per run */
  rate: number;
  steadySeconds: number;
  rounds: WebhookRound[];
  order: OrderCheck[];
  deliveries: DeliveryCount;
  /** the delivering server's CPU profile under full load, its deliveries made (when `profileDir` was given) */
  profile?: ProfileSummary;
  profileError?: string;
}

export interface WebhookSettings extends MeasureOptions {
  root: string;
  command: ServerCommand;
  /** the JWT secret the servers check */
  secret: string;
  /** two copies of the same data set */
  databases: Record<Side, string>;
  meta: BenchMeta;
  request: OpRequest;
  /** where the delivering server's CPU profile is written; none: no profile */
  profileDir?: string;
}

/** A server that delivers, to the receiver on 127.0.0.1. */
const DELIVERING = { WEBHOOK_DELIVERY: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

async function withStore<T>(databaseUrl: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(databaseUrl);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
const committedWrites = async (store: Store) =>
  Number((await store.db.selectFrom('rebate_code_transactions').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);

export async function measureWebhooks(s: WebhookSettings): Promise<WebhookResult> {
  const endpointSecret = newWebhookSecret();
  const receiver = await startReceiver({ [PATHS.off]: endpointSecret, [PATHS.on]: endpointSecret });
  const servers: Partial<Record<Side, Child>> = {};
  let outbox: Store | undefined;
  try {
    // The hot company's endpoint, given through the import format (no save-time address check).
    const before = {} as Record<Side, number>;
    for (const side of ['off', 'on'] as const) {
      before[side] = await withStore(s.databases[side], async (store) => {
        await importData(store, { WebhookEndpoints: [{ CompanyId: s.meta.hotCompanyId, Id: ENDPOINT_ID, Url: receiver.url + PATHS[side], EventTypes: [WEBHOOK_EVENT], Secret: endpointSecret }] });
        return committedWrites(store);
      });
    }
    servers.off = await startApi(s.root, s.command, s.databases.off, s.secret);
    servers.on = await startApi(s.root, s.command, s.databases.on, s.secret, { env: DELIVERING });
    outbox = await openStore(s.databases.on);
    const sent = { answered: 0, drainMs: 0 };
    // After each run with delivery its deliveries are made before the next run starts, so none meets a backlog.
    const measure = async (side: Side, run: (url: string) => Promise<LoadResult>): Promise<LoadResult> => {
      const result = await run(servers[side]!.url);
      if (side === 'on') {
        sent.answered += Object.entries(result.statuses).reduce((n, [status, count]) => n + (status.startsWith('2') ? count : 0), 0);
        sent.drainMs = Math.max(sent.drainMs, await drain(outbox!));
      }
      return result;
    };
    const settings = { connections: s.connections, expectStatus: 200 };
    const full = (side: Side, duration: number, round: number) => measure(side, (url) => runLoad(url, s.request, { ...settings, duration, seed: `${s.seed}:webhooks:${round}` }));
    // Each round swaps which server goes first, so neither always follows the other's load.
    const inTurn = async <T>(round: number, one: (side: Side) => Promise<T>): Promise<Record<Side, T>> => {
      const results = {} as Record<Side, T>;
      for (const side of round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const)) results[side] = await one(side);
      return results;
    };
    const describe = (r: Record<Side, LoadResult>) => (['off', 'on'] as const).map((side) => `${side} ${r[side].rps.toFixed(0)} req/s p50 ${r[side].p50.toFixed(2)} p99 ${r[side].p99.toFixed(2)} ms`).join(' | ');
    if (s.warmup > 0) await inTurn(1, (side) => full(side, s.warmup, 0));
    const fullRounds: Array<Record<Side, LoadResult>> = [];
    for (let round = 1; round <= s.rounds; round++) {
      fullRounds.push(await inTurn(round, (side) => full(side, s.duration, round)));
      s.log(`webhooks round ${round}/${s.rounds} full load: ${describe(fullRounds[round - 1])}`);
    }
    const rate = Math.max(1, Math.round(STEADY_SHARE * median(fullRounds.map((r) => r.off.rps))));
    const duration = Math.min(4 * s.duration, Math.max(s.duration, STEADY_MIN_REQUESTS / rate));
    const rounds: WebhookRound[] = [];
    for (let round = 1; round <= s.rounds; round++) {
      const steady = await inTurn(round, (side) => measure(side, (url) => runPaced(url, s.request, { ...settings, rate, duration, seed: `${s.seed}:webhooks:steady:${round}` })));
      rounds.push({ full: fullRounds[round - 1], steady });
      s.log(`webhooks round ${round}/${s.rounds} at ${rate} req/s: ${describe(steady)}`);
    }
    const order = await orderChecks(servers.on.url, s.request, receiver);
    sent.answered += order.length;
    await drain(outbox);
    await Promise.all([servers.off.stop(), servers.on.stop()]);
    const deliveries = await count(outbox, s.databases.off, receiver, before, sent);
    s.log(`webhooks: ${JSON.stringify(deliveries)}`);
    const result: WebhookResult = { operation: WEBHOOK_OPERATION, event: WEBHOOK_EVENT, rate, steadySeconds: duration, rounds, order, deliveries };
    // Counted above: the profile's writes and deliveries are its own. Its window holds the load
    // and the deliveries that follow it, all the delivering work the writes caused.
    if (s.profileDir) {
      try {
        result.profile = await profileServer(s.root, s.profileDir, (nodeArgs) => startApi(s.root, s.command, s.databases.on, s.secret, { nodeArgs, env: DELIVERING }), async (url) => {
          await runLoad(url, s.request, { ...settings, duration: s.duration, seed: `${s.seed}:webhooks:profile` });
          await drain(outbox!);
        });
      } catch (err) {
        result.profileError = (err as Error).message.split('\n')[0];
      }
    }
    return result;
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await outbox?.close();
    await receiver.close();
  }
}

/**
 * Waits until the delivering server's outbox has had nothing pending for 250 ms (writes still
 * in flight when a run stopped commit and deliver too), up to DRAIN_LIMIT_MS; answers how long
 * after the run deliveries were still pending.
 */
async function drain(outbox: Store): Promise<number> {
  const started = performance.now();
  let pendingAt = started;
  for (;;) {
    const now = performance.now();
    const pending = Number((await outbox.db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
    if (pending > 0) pendingAt = now;
    else if (now - pendingAt >= 250) return pendingAt - started;
    if (now - started >= DRAIN_LIMIT_MS) return now - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Writes sent one at a time to an idle server: when did the answer come, and when the
 * delivery? Each answer is timed when its head arrived, on node:http: the same moment the
 * receiver times a delivery, both in this process's HTTP parser, so the order of the two is
 * the order in which they reached this process.
 */
async function orderChecks(url: string, request: OpRequest, receiver: Receiver): Promise<OrderCheck[]> {
  const checks: OrderCheck[] = [];
  for (let i = 0; i < ORDER_CHECKS; i++) {
    const delivered = receiver.next(PATHS.on, 10_000);
    const started = performance.now();
    const answer = await new Promise<{ status: number; headAt: number; body: string }>((resolve, reject) => {
      const headers = { ...request.headers, 'content-length': String(Buffer.byteLength(request.body ?? '')) };
      const sent = httpRequest(url + request.path, { method: request.method, headers }, (response) => {
        const headAt = performance.now();
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headAt, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      sent.on('error', reject);
      sent.end(request.body);
    });
    const arrival = await delivered;
    if (answer.status !== 200) throw new Error(`${WEBHOOK_OPERATION} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    checks.push({
      answerMs: answer.headAt - started,
      lagMs: arrival ? arrival.at - answer.headAt : NaN,
      sameData: arrival !== undefined && isDeepStrictEqual((JSON.parse(arrival.body) as { data: unknown }).data, JSON.parse(answer.body)),
    });
  }
  return checks;
}

/** Counts, in each copy once its server has stopped, what the writes left, against what the receiver got. */
async function count(outbox: Store, baseline: string, receiver: Receiver, before: Record<Side, number>, sent: { answered: number; drainMs: number }) {
  const of = async (store: Store, side: Side) => ({
    rows: await store.db.selectFrom('webhook_deliveries').select(['message_id', 'status']).where('endpoint_id', '=', ENDPOINT_ID).execute(),
    committed: (await committedWrites(store)) - before[side],
  });
  const [off, on] = [await withStore(baseline, (store) => of(store, 'off')), await of(outbox, 'on')];
  const recordedIds = new Set(on.rows.map((r) => r.message_id));
  const receivedIds = receiver.messageIds(PATHS.on);
  const tally = receiver.tally(PATHS.on);
  const statuses: Record<string, number> = {};
  for (const row of on.rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
  return {
    /** 2xx answers to writes sent to the delivering server (warm-up, rounds and the order checks), the rows they added, and the events its outbox holds */
    answered: sent.answered,
    committed: on.committed,
    recorded: on.rows.length,
    /** deliveries that reached the receiver, their distinct webhook-ids, and the resends */
    received: tally.deliveries,
    distinct: tally.distinct,
    duplicates: tally.deliveries - tally.distinct,
    /** recorded events never received, and received ids the outbox does not hold */
    missing: [...recordedIds].filter((id) => !receivedIds.has(id)).length,
    unknown: [...receivedIds].filter((id) => !recordedIds.has(id)).length,
    badSignatures: tally.badSignatures,
    /** the outbox's rows by status */
    statuses,
    /** the server without delivery: writes committed, events recorded, and deliveries that reached the receiver (must be none) */
    baselineCommitted: off.committed,
    baselineRecorded: off.rows.length,
    baselineReceived: receiver.tally(PATHS.off).deliveries,
    /** longest wait after a run until nothing was pending, ms */
    drainMs: sent.drainMs,
  };
}
