import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretKey } from '../../src/webhooks/secret.js';
import { signatureHeaders } from '../../src/webhooks/signing.js';

// The webhook receiver of the bench: an http server in the bench process, on 127.0.0.1 only,
// that answers every delivery 200 at once and keeps what arrived, per path (one path per
// endpoint), so the bench can say whether every write was delivered, how often, and whether
// each delivery was signed with the endpoint's secret.

export interface Arrival {
  /** performance.now() when the delivery's request head arrived */
  at: number;
  messageId: string;
  signed: boolean;
  /** the event's body as sent */
  body: string;
}

export interface PathTally {
  deliveries: number;
  /** distinct webhook-ids */
  distinct: number;
  /** deliveries whose webhook-signature did not verify with the endpoint's secret */
  badSignatures: number;
  /** performance.now() of the latest delivery; undefined before the first */
  lastAt?: number;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  url: string;
  tally(path: string): PathTally;
  /** every webhook-id that arrived on `path` */
  messageIds(path: string): Set<string>;
  /** the next delivery on `path` after this call, or undefined after `timeoutMs` */
  next(path: string, timeoutMs: number): Promise<Arrival | undefined>;
  close(): Promise<void>;
}

/** A delivery's webhook-signature is `v1,<base64>` (several may be sent, space-separated). */
function verifies(request: IncomingMessage, body: string, key: Buffer): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const sent = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof sent !== 'string' || !/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(signatureHeaders(id, new Date(Number(timestamp) * 1000), body, key)['webhook-signature']);
  return sent.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Listens on 127.0.0.1; `secrets` maps each endpoint's path to its `whsec_` secret. */
export async function startReceiver(secrets: Record<string, string>): Promise<Receiver> {
  const keys = new Map(Object.entries(secrets).map(([path, secret]) => {
    const key = secretKey(secret);
    if (!key) throw new Error(`the secret for ${path} is not a whsec_ secret`);
    return [path, key];
  }));
  const arrivals = new Map<string, Arrival[]>([...keys.keys()].map((path) => [path, []]));
  const waiting = new Map<string, Array<(arrival: Arrival) => void>>();
  const server = createServer((request, response) => {
    // Timed by its head, as the bench times a write's answer.
    const at = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      const key = keys.get(path);
      const arrival: Arrival = { at, messageId: String(request.headers['webhook-id'] ?? ''), signed: key !== undefined && verifies(request, body, key), body };
      if (!arrivals.has(path)) arrivals.set(path, []);
      arrivals.get(path)!.push(arrival);
      for (const resolve of waiting.get(path)?.splice(0) ?? []) resolve(arrival);
      response.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const of = (path: string) => arrivals.get(path) ?? [];
  return {
    url: `http://127.0.0.1:${port}`,
    tally(path) {
      const list = of(path);
      return {
        deliveries: list.length,
        distinct: new Set(list.map((a) => a.messageId)).size,
        badSignatures: list.filter((a) => !a.signed).length,
        ...(list.length > 0 ? { lastAt: list[list.length - 1].at } : {}),
      };
    },
    messageIds: (path) => new Set(of(path).map((a) => a.messageId)),
    next(path, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        const list = waiting.get(path) ?? [];
        waiting.set(path, list);
        list.push((arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        });
      });
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
