import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on 127.0.0.1, as a customer's system would run one: every delivery is
 * verified with the Standard Webhooks reference library (`standardwebhooks` on npm) against
 * the secret of the endpoint it was sent to, and kept for the test to look at.
 */

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the verified payload: the library threw nothing */
  payload?: { type: string; timestamp: string; data: Record<string, unknown> };
  /** why verification failed */
  refused?: string;
  at: number;
}

/** What the receiver answers one delivery: a status, headers, and whether to hold the answer back. */
export type Answer = {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  holdMs?: number;
  never?: boolean;
  /** close the connection without an answer, as a server does with a kept connection it just timed out */
  drop?: boolean;
};

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  deliveries: Delivery[];
  /** connections opened to it so far */
  connections(): number;
  /** how the next deliveries are answered (default 200), by path */
  answer(respond: (delivery: Delivery, count: number) => Answer): void;
  /** resolves once `count` deliveries arrived (or when the time is up, with what arrived) */
  waitFor(count: number, timeoutMs?: number, predicate?: (d: Delivery) => boolean): Promise<Delivery[]>;
  close(): Promise<void>;
}

/** Starts a receiver that verifies with `secretOf(path)`; closed when the test ends. */
export async function startReceiver(
  t: { teardown(fn: () => unknown): void },
  secretOf: (path: string) => string,
): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let respond: (delivery: Delivery, count: number) => Answer = () => ({ status: 200 });
  const waiting = new Set<() => void>();
  const held = new Set<ServerResponse>();
  let connections = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery: Delivery = { path: req.url ?? '/', headers: req.headers, body, at: Date.now() };
      try {
        delivery.payload = new Webhook(secretOf(delivery.path)).verify(body, req.headers as Record<string, string>) as Delivery['payload'];
      } catch (err) {
        delivery.refused = (err as Error).message;
      }
      deliveries.push(delivery);
      for (const wake of waiting) wake();
      const answer = respond(delivery, deliveries.length);
      if (answer.drop) {
        req.socket.destroy();
        return;
      }
      if (answer.never) {
        held.add(res);
        return;
      }
      const send = () => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      if (answer.holdMs) setTimeout(send, answer.holdMs);
      else send();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  t.teardown(close);

  return {
    origin: `http://127.0.0.1:${port}`,
    deliveries,
    connections: () => connections,
    answer(next) {
      respond = next;
    },
    waitFor(count, timeoutMs = 10000, predicate = () => true) {
      const matching = () => deliveries.filter(predicate);
      return new Promise((resolve) => {
        const check = () => {
          if (matching().length < count) return;
          finish();
        };
        const finish = () => {
          clearTimeout(timer);
          waiting.delete(check);
          resolve(matching());
        };
        const timer = setTimeout(finish, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    close,
  };
}

/** Resolves when `condition` holds (polled), or fails with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, condition: () => Promise<T | undefined | false>, timeoutMs = 10000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
