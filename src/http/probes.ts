import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/db.js';
import { errorBody } from './error-body.js';
import { ApiError } from '../contract/errors.js';

/**
 * The balancer's probes (docs/operating.md, "Probes"): `/health`, liveness (the process and
 * its store answer), and `/ready`, whether the node should get traffic now. Both are served
 * by the app and, when HEALTH_PORT is set, by a listener of their own in a thread of its own.
 */

/** Where a node is in its life: only a `serving` node is ready. */
export type Phase = 'starting' | 'migrating' | 'serving' | 'draining';
const PHASES: readonly Phase[] = ['starting', 'migrating', 'serving', 'draining'];

/** What is known of the store: none yet, it answered its last probe, or it did not. */
export type StoreState = 'none' | 'answers' | 'fails';
const STORE_STATES: readonly StoreState[] = ['none', 'answers', 'fails'];

/**
 * The node's phase and its store, once open: set by whoever starts and stops the node. The
 * phase, the store's last answer and when it came are kept in memory shared with HEALTH_PORT's
 * thread (`shared`: two Int32 slots, then the time as a BigInt64), which answers from them.
 */
export class Readiness {
  readonly shared = new SharedArrayBuffer(16);
  private readonly slots = new Int32Array(this.shared, 0, 2);
  private readonly answeredAt = new BigInt64Array(this.shared, 8, 1);
  /** where the node is in its life; `enter` changes it, and tells HEALTH_PORT's thread */
  readonly phase: Phase = 'starting';
  store: Store | undefined;

  constructor(phase: Phase = 'starting') {
    this.enter(phase);
  }

  enter(phase: Phase): void {
    (this as { phase: Phase }).phase = phase;
    Atomics.store(this.slots, 0, PHASES.indexOf(phase));
  }

  /** Records the store's answer to a probe, made `at` (ms since the epoch; now by default). */
  storeAnswered(answered: boolean, at = Date.now()): void {
    Atomics.store(this.slots, 1, STORE_STATES.indexOf(answered ? 'answers' : 'fails'));
    Atomics.store(this.answeredAt, 0, BigInt(at));
  }
}

/** What HEALTH_PORT's thread reads of a Readiness's shared memory. */
export function readShared(shared: SharedArrayBuffer): { phase: Phase; store: StoreState; at: number } {
  const slots = new Int32Array(shared, 0, 2);
  return {
    phase: PHASES[Atomics.load(slots, 0)],
    store: STORE_STATES[Atomics.load(slots, 1)],
    at: Number(Atomics.load(new BigInt64Array(shared, 8, 1), 0)),
  };
}

export interface ProbeAnswer {
  status: 200 | 503;
  body: string;
}

export const unavailable = (message: string): ProbeAnswer => ({ status: 503, body: errorBody('json', new ApiError(503, 'ServiceUnavailable', message)) });

const NOT_SERVING: Record<Exclude<Phase, 'serving'>, string> = {
  starting: 'The node is starting.',
  migrating: 'The node is applying migrations.',
  draining: 'The node is shutting down.',
};

/** /health's answer: 200 while the process and its store answer, draining or not. */
export function healthAnswer(phase: Phase, store: StoreState): ProbeAnswer {
  if (store === 'none') return unavailable(NOT_SERVING[phase === 'serving' ? 'starting' : phase]);
  if (store === 'fails') return unavailable('The store does not answer.');
  return { status: 200, body: '{"Status":"ok"}' };
}

/** /ready's answer: 200 when the node serves and its store answers; 503 saying why not. */
export function readyAnswer(phase: Phase, store: StoreState): ProbeAnswer {
  if (phase !== 'serving') return unavailable(NOT_SERVING[phase]);
  if (store === 'none') return unavailable(NOT_SERVING.starting);
  if (store === 'fails') return unavailable('The store does not answer.');
  return { status: 200, body: '{"Status":"ready"}' };
}

/** Probes the store; a failure is logged unless `quiet`. */
async function storeState(readiness: Readiness, log: FastifyBaseLogger, quiet = false): Promise<StoreState> {
  if (!readiness.store) return 'none';
  try {
    await readiness.store.probe();
    return 'answers';
  } catch (err) {
    if (!quiet) log.error({ err }, 'the store does not answer the probe');
    return 'fails';
  }
}

/** GET /health on the API's port: the store probed now. */
export async function health(readiness: Readiness, log: FastifyBaseLogger): Promise<ProbeAnswer> {
  return healthAnswer(readiness.phase, await storeState(readiness, log));
}

/** GET /ready on the API's port: the store probed now, once the node serves. */
export async function ready(readiness: Readiness, log: FastifyBaseLogger): Promise<ProbeAnswer> {
  if (readiness.phase !== 'serving') return readyAnswer(readiness.phase, 'none');
  return readyAnswer('serving', await storeState(readiness, log));
}

/** How often this thread probes the store for HEALTH_PORT's answers. */
export const BEAT_MS = 250;
/** An answer older than this counts as none: the node's own thread or its store has stopped answering. */
export const STALE_MS = 10_000;

/**
 * How to start probe-listener, the file beside this one: itself in dist/; where the sources
 * run under tsx (the tests, `npm run` scripts), through tsx's loader, which a worker thread of
 * Node 20 does not inherit from `--import`.
 */
function listenerEntry(): [string | URL, { eval?: boolean }] {
  const file = new URL(`./probe-listener${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  if (!file.pathname.endsWith('.ts')) return [file, {}];
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return [`import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); });`, { eval: true }];
}

export interface ProbeListener {
  port: number;
  /** probes the store now (or waits for the probe under way) and shares its answer */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/**
 * HEALTH_PORT: the two probes and nothing else, served by a thread of its own
 * (probe-listener.ts), so that a probe never waits for the requests of the node's event loop
 * (docs/decisions.md, "Probes in a thread of their own"). This thread probes the store every
 * BEAT_MS and shares the phase and the answer; that thread answers from them. The node closes
 * it before its store, as it stops taking connections.
 */
export async function listenForProbes(readiness: Readiness, port: number, host: string, log: FastifyBaseLogger): Promise<ProbeListener> {
  let probing: Promise<void> | undefined;
  let failing = false;
  const refresh = () => {
    // A store that stays down is logged once, when it stops answering, not four times a second.
    probing ??= storeState(readiness, log, failing).then((state) => {
      failing = state === 'fails';
      readiness.storeAnswered(state === 'answers');
      probing = undefined;
    });
    return probing;
  };
  const beat = setInterval(() => {
    if (readiness.store) void refresh();
  }, BEAT_MS).unref();
  const [entry, how] = listenerEntry();
  const worker = new Worker(entry, { ...how, workerData: { shared: readiness.shared, port, host, staleMs: STALE_MS } });
  worker.unref();
  const listening = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port?: number; error?: string }) =>
      message.port === undefined ? reject(new Error(`HEALTH_PORT: ${message.error}`)) : resolve(message.port));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`HEALTH_PORT: its thread exited with ${code} before listening`)));
  }).catch(async (err) => {
    clearInterval(beat);
    await worker.terminate();
    throw err;
  });
  let closing = false;
  worker.on('error', (err) => log.error({ err }, "HEALTH_PORT's thread failed: the probes are not served there any more"));
  worker.on('exit', (code) => {
    if (!closing) log.error({ code }, "HEALTH_PORT's thread exited: the probes are not served there any more");
  });
  log.info(`probes (/health, /ready) on ${host}:${listening}, in a thread of their own`);
  return {
    port: listening,
    refresh,
    async close() {
      closing = true;
      clearInterval(beat);
      await worker.terminate();
    },
  };
}
