import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValidateFunction } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { createServerAjv, type ServerAjv } from '../../src/contract/ajv.js';
import { contract } from '../../src/contract/contract.js';

/**
 * A webhook receiver on 127.0.0.1, as a customer's system would run one: every delivery is
 * verified with the Standard Webhooks reference library (`standardwebhooks` on npm) against
 * the secret of the endpoint it was sent to, and kept for the test to look at. Every body is
 * also checked against its event's schema in the contract's `webhooks` section: a body that
 * does not match fails the test that started the receiver, whatever that test asserts.
 */

/** The id the contract is registered under, for `$ref`s into it. */
const CONTRACT_ID = 'contract';
let ajv: ServerAjv | undefined;
const validators = new Map<string, ValidateFunction>();

/** The validator of the body of the `webhooks` entry `type`; undefined when the contract has no such entry. */
function bodyValidator(type: string): ValidateFunction | undefined {
  const { document } = contract();
  if (!Object.hasOwn(document.webhooks ?? {}, type)) return undefined;
  let validate = validators.get(type);
  if (!validate) {
    if (!ajv) {
      ajv = createServerAjv();
      // The document as a whole is no JSON Schema, only its schemas are: Ajv's check of it is skipped.
      ajv.addSchema({ ...document, $id: CONTRACT_ID }, undefined, undefined, false);
    }
    const path = ['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'];
    const pointer = path.map((key) => encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
    validate = ajv.compile({ $ref: `${CONTRACT_ID}#/${pointer}` });
    validators.set(type, validate);
  }
  return validate;
}

/** A delivery's body judged by the contract: its event type when its `webhooks` entry's schema takes it, else why not. */
export function checkBody(body: string): { type: string; problem?: undefined } | { problem: string } {
  let event: { type?: unknown };
  try {
    event = JSON.parse(body);
  } catch {
    return { problem: 'the body is not JSON' };
  }
  const type = event?.type;
  const validate = typeof type === 'string' ? bodyValidator(type) : undefined;
  if (!validate) return { problem: `the contract's webhooks section has no event ${JSON.stringify(type)}` };
  // Parsed here for the check alone: the server's Ajv fills in defaults, and the test looks at the body as sent.
  return validate(event) ? { type: type as string } : { problem: ajv!.errorsText(validate.errors) };
}

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the verified payload: the library threw nothing */
  payload?: { type: string; timestamp: string; data: Record<string, unknown> };
  /** why verification failed */
  refused?: string;
  /** the event type whose schema in the contract's `webhooks` section the body matched */
  conforms?: string;
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

/**
 * Starts a receiver that verifies with `secretOf(path)`, and fails `t` on any body its
 * event's schema refuses; closed when the test ends.
 */
export async function startReceiver(
  t: { teardown(fn: () => unknown): void; fail(message: string): unknown },
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
      const checked = checkBody(body);
      if (checked.problem !== undefined) t.fail(`${delivery.path}: a body the contract's webhooks section does not declare: ${checked.problem}\n${body.slice(0, 2000)}`);
      else delivery.conforms = checked.type;
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
