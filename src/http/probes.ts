import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/db.js';
import { errorBody } from './error-body.js';
import { ApiError } from './errors.js';

/**
 * The balancer's probes (docs/operating.md, "Probes"): `/health`, liveness (the process and
 * its store answer), and `/ready`, whether the node should get traffic now. Both are served
 * by the app and, when HEALTH_PORT is set, by a bare listener of their own.
 */

/** Where a node is in its life: only a `serving` node is ready. */
export type Phase = 'starting' | 'migrating' | 'serving' | 'draining';

/** The node's phase and its store, once open: set by whoever starts and stops the node. */
export class Readiness {
  phase: Phase = 'starting';
  store: Store | undefined;
}

export interface ProbeAnswer {
  status: 200 | 503;
  body: string;
}

const unavailable = (message: string): ProbeAnswer => ({ status: 503, body: errorBody('json', new ApiError(503, 'ServiceUnavailable', message)) });

const NOT_SERVING: Record<Exclude<Phase, 'serving'>, string> = {
  starting: 'The node is starting.',
  migrating: 'The node is applying migrations.',
  draining: 'The node is shutting down.',
};

async function storeAnswers(readiness: Readiness, log: FastifyBaseLogger): Promise<boolean> {
  if (!readiness.store) return false;
  try {
    await readiness.store.probe();
    return true;
  } catch (err) {
    log.error({ err }, 'the store does not answer the probe');
    return false;
  }
}

/** GET /health: 200 while the process and its store answer, draining or not. */
export async function health(readiness: Readiness, log: FastifyBaseLogger): Promise<ProbeAnswer> {
  if (!readiness.store) return unavailable(NOT_SERVING[readiness.phase === 'serving' ? 'starting' : readiness.phase]);
  if (!(await storeAnswers(readiness, log))) return unavailable('The store does not answer.');
  return { status: 200, body: '{"Status":"ok"}' };
}

/** GET /ready: 200 when the node serves and its store answers; 503 saying why not. */
export async function ready(readiness: Readiness, log: FastifyBaseLogger): Promise<ProbeAnswer> {
  if (readiness.phase !== 'serving') return unavailable(NOT_SERVING[readiness.phase]);
  if (!(await storeAnswers(readiness, log))) return unavailable('The store does not answer.');
  return { status: 200, body: '{"Status":"ready"}' };
}

const PROBES: Record<string, typeof health | undefined> = { '/health': health, '/ready': ready };

/**
 * HEALTH_PORT's listener: the two probes and nothing else, each answer closing its
 * connection (balancers probe on a new one). It has no rate limit and sheds nothing.
 */
export async function listenForProbes(readiness: Readiness, port: number, host: string, log: FastifyBaseLogger): Promise<Server> {
  const answer = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const probe = Object.hasOwn(PROBES, path) ? PROBES[path] : undefined;
    if (!probe || (req.method !== 'GET' && req.method !== 'HEAD')) {
      const refused = probe
        ? new ApiError(405, 'MethodNotAllowed', `${req.method} is not allowed on ${path}; use GET.`)
        : new ApiError(404, 'NotFound', `HEALTH_PORT serves /health and /ready only, not ${path}.`);
      answer(res, refused.statusCode, errorBody('json', refused));
      return;
    }
    probe(readiness, log).then(
      ({ status, body }) => answer(res, status, body),
      (err) => {
        log.error({ err }, 'probe failed');
        answer(res, 503, unavailable('The probe failed.').body);
      },
    );
  });
  server.headersTimeout = 5000;
  server.requestTimeout = 5000;
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  log.info(`probes (/health, /ready) on ${host}:${(server.address() as AddressInfo).port}`);
  return server;
}
