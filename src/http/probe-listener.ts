import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { errorBody } from './error-body.js';
import { ApiError } from '../contract/errors.js';
import { healthAnswer, readShared, readyAnswer, unavailable } from './probes.js';

// HEALTH_PORT's listener, in a worker thread of its own (probes.ts starts it): it answers
// /health and /ready from what the node's thread shares, each answer closing its connection
// (balancers probe on a new one), and never waits for that thread's turns.
const { shared, port, host, staleMs } = workerData as { shared: SharedArrayBuffer; port: number; host: string; staleMs: number };
const ANSWERS = { '/health': healthAnswer, '/ready': readyAnswer };

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

const server = createServer((req, res) => {
  const path = (req.url ?? '').split('?')[0];
  const probe = Object.hasOwn(ANSWERS, path) ? ANSWERS[path as keyof typeof ANSWERS] : undefined;
  if (!probe || (req.method !== 'GET' && req.method !== 'HEAD')) {
    const refused = probe
      ? new ApiError(405, 'MethodNotAllowed', `${req.method} is not allowed on ${path}; use GET.`)
      : new ApiError(404, 'NotFound', `HEALTH_PORT serves /health and /ready only, not ${path}.`);
    return answer(res, refused.statusCode, errorBody('json', refused));
  }
  const { phase, store, at } = readShared(shared);
  // The node's thread probes its store every quarter second: silence this long means it or its store has stopped.
  if (store !== 'none' && Date.now() - at > staleMs) {
    const { status, body } = unavailable('The node has not heard from its store for too long.');
    return answer(res, status, body);
  }
  const { status, body } = probe(phase, store);
  answer(res, status, body);
});
server.headersTimeout = 5000;
server.requestTimeout = 5000;
server.keepAliveTimeout = 0;
// An error before it listens is told to the node's thread; one after ends this thread, which that thread logs.
const refused = (err: Error) => parentPort!.postMessage({ error: err.message });
server.once('error', refused);
server.listen({ port, host }, () => {
  server.off('error', refused);
  parentPort!.postMessage({ port: (server.address() as AddressInfo).port });
});
