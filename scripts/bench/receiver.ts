import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretKey } from '../../src/webhooks/secret.js';
import { signatureHeaders } from '../../src/webhooks/signing.js';

// The bench's webhook receiver: an http server in the bench process, on 127.0.0.1 only, that
// answers every delivery 200 at once and keeps what arrived per path (one path per endpoint),
// so the bench can say whether every write was delivered, how often, and whether each
// delivery was signed with the endpoint's secret.

export interface Arrival {
  /** performance.now() when the delivery's request head arrived, as the bench times a write's answer */
  at: number;
  messageId: string;
  signed: boolean;
  /** the event's body as sent */
  body: string;
}

/** A delivery's webhook-signature is `v1,<base64>` (several may be sent, space-separated). */
function verifies(headers: IncomingHttpHeaders, body: string, key: Buffer): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': sent } = headers;
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof sent !== 'string' || !/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(signatureHeaders(id, new Date(Number(timestamp) * 1000), body, key)['webhook-signature']);
  return sent.split(' ').some((candidate) => Buffer.byteLength(candidate) === expected.length && timingSafeEqual(Buffer.from(candidate), expected));
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Listens on 127.0.0.1; `secrets` maps each endpoint's path to its `whsec_` secret. */
export async function startReceiver(secrets: Record<string, string>) {
  const keys = new Map(Object.entries(secrets).map(([path, secret]) => {
    const key = secretKey(secret);
    if (!key) throw new Error(`the secret for ${path} is not a whsec_ secret`);
    return [path, key];
  }));
  const arrivals = new Map<string, Arrival[]>();
  const waiting = new Map<string, Array<(arrival: Arrival) => void>>();
  const of = (path: string) => arrivals.get(path) ?? [];
  const server = createServer((request, response) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      const key = keys.get(path);
      const arrival: Arrival = { at, messageId: String(request.headers['webhook-id'] ?? ''), signed: key !== undefined && verifies(request.headers, body, key), body };
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
  return {
    /** http://127.0.0.1:<port> */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** deliveries on `path`, their distinct webhook-ids, and those whose signature did not verify */
    tally: (path: string) => ({ deliveries: of(path).length, distinct: new Set(of(path).map((a) => a.messageId)).size, badSignatures: of(path).filter((a) => !a.signed).length }),
    messageIds: (path: string) => new Set(of(path).map((a) => a.messageId)),
    /** the next delivery on `path` after this call, or undefined after `timeoutMs` */
    next(path: string, timeoutMs: number): Promise<Arrival | undefined> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        waiting.set(path, [...(waiting.get(path) ?? []), (arrival) => { clearTimeout(timer); resolve(arrival); }]);
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
