import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type RequestOptions } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { isLocalHostName, isPublicAddress } from '../domain/webhooks.js';

/** What DNS gives for a name: every address, as `dns.lookup(name, { all: true })` answers. */
export type ResolveAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface SendOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: private, loopback and other non-public addresses may be called */
  allowPrivateTargets: boolean;
  /** the whole attempt, name resolution included */
  timeoutMs: number;
  /** aborts the attempt (a stopping node) */
  signal?: AbortSignal;
  resolve?: ResolveAll;
}

export interface SendResult {
  /** null when no answer came */
  statusCode: number | null;
  /** the start of the answer's body */
  response: string | null;
  retryAfter?: string;
  /** why no answer came */
  error: string | null;
}

/** At most this much of an answer is read; the rest is not waited for. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** At most this much of the answer is kept with the attempt. */
export const KEPT_RESPONSE_CHARS = 1024;

/**
 * Connections are kept open for the next attempt to the same host and port, as a browser or
 * any HTTP client keeps them. Each was opened to an address that was checked when it was
 * opened (see send), so reusing it connects nowhere new. An idle connection is closed after
 * IDLE_CONNECTION_MS, before the usual servers close theirs (Node's after 5 s).
 */
export const IDLE_CONNECTION_MS = 4000;
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
};

const resolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

class RefusedTarget extends Error {}
class StaleConnection extends Error {}

/**
 * The address to connect to: the literal, or the name's addresses checked with the same
 * policy as when the endpoint is saved (isPublicAddress). A name with any non-public
 * address is refused (a name that answers both could be switched between them).
 */
async function checkedAddress(hostname: string, options: SendOptions): Promise<{ address: string; family: number }> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    if (!options.allowPrivateTargets && !isPublicAddress(host)) throw new RefusedTarget(`${host} is not a public address`);
    return { address: host, family: isIP(host) };
  }
  if (!options.allowPrivateTargets && isLocalHostName(host)) throw new RefusedTarget(`${host} names this machine`);
  const addresses = await (options.resolve ?? resolveAll)(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (!options.allowPrivateTargets && refused) throw new RefusedTarget(`${host} resolves to ${refused.address}, which is not a public address`);
  return addresses[0];
}

/** Endpoint URLs as request options, by their text: a delivery to a URL seen before parses nothing. */
type Target = Pick<RequestOptions, 'protocol' | 'hostname' | 'port' | 'path'>;
const targets = new Map<string, Target>();
const MAX_TARGETS = 1000;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target) return target;
  const { protocol, hostname, port, path } = urlToHttpOptions(new URL(url));
  target = { protocol, hostname, port, path };
  if (targets.size >= MAX_TARGETS) targets.delete(targets.keys().next().value!);
  targets.set(url, target);
  return target;
}

/** What each stop signal cuts short: one listener on a signal, however many attempts it stops. */
const stoppable = new WeakMap<AbortSignal, Set<() => void>>();

function onStop(signal: AbortSignal, stop: () => void): () => void {
  let stops = stoppable.get(signal);
  if (!stops) {
    const all = new Set<() => void>();
    signal.addEventListener('abort', () => all.forEach((cut) => cut()), { once: true });
    stoppable.set(signal, (stops = all));
  }
  stops.add(stop);
  return () => stops.delete(stop);
}

/**
 * POSTs `body` to `url` once. The host is resolved and checked here, and the connection
 * goes to the very address that was checked (a `lookup` that answers only it), so a DNS
 * answer cannot change between the check and the connect; TLS still verifies the name.
 * Redirects are not followed (an answer is an answer); at most MAX_RESPONSE_BYTES are
 * read. Never throws: a failure is a result with `error`. The time-out is one timer cleared
 * as the attempt ends, a stop an entry in onStop: AbortSignal.timeout and .any per attempt
 * cost more than the rest of the sender.
 */
export function send(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  return new Promise((resolve) => {
    let ended = false;
    let request: http.ClientRequest | undefined;
    let stopped: (() => void) | undefined;
    const end = (result: SendResult) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      stopped?.();
      resolve(result);
    };
    // Cut short: the request is destroyed, and what it then raises is not waited for.
    const cut = (why: string) => {
      end(failed(why));
      request?.destroy();
    };
    const timer = setTimeout(() => cut(`no answer within ${options.timeoutMs} ms`), options.timeoutMs);
    const stop = () => cut('the attempt was stopped');
    if (options.signal?.aborted) return stop();
    if (options.signal) stopped = onStop(options.signal, stop);
    const attempt = async (): Promise<SendResult> => {
      const target = targetOf(url);
      const pinned = await checkedAddress(target.hostname!, options);
      const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        if (lookupOptions.all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
        else callback(null, pinned.address, pinned.family);
      };
      const posted = () => {
        if (ended) throw new Error('the attempt ended');
        return post(target, headers, body, lookup, (r) => (request = r), () => ended);
      };
      try {
        return await posted();
      } catch (err) {
        // A kept connection the other side had just closed: the usual race of keep-alive,
        // resolved the usual way, once, on a new connection.
        if (!(err instanceof StaleConnection)) throw err;
        return await posted();
      }
    };
    attempt().then(end, (err: unknown) => end(err instanceof RefusedTarget ? failed(`refused: ${err.message}`) : failed(describe(err))));
  });
}

const failed = (error: string): SendResult => ({ statusCode: null, response: null, error });

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(': ').slice(0, 500) || 'the attempt failed';
}

function post(
  target: Target,
  headers: Record<string, string>,
  body: string,
  lookup: LookupFunction,
  started: (request: http.ClientRequest) => void,
  ended: () => boolean,
): Promise<SendResult> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        ...target,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        agent: target.protocol === 'https:' ? agents['https:'] : agents['http:'],
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (whole: boolean) => {
          const text = Buffer.concat(chunks).toString('utf8').slice(0, KEPT_RESPONSE_CHARS);
          const retryAfter = response.headers['retry-after'];
          resolve({ statusCode: response.statusCode ?? null, response: text === '' ? null : text, error: null, ...(retryAfter ? { retryAfter } : {}) });
          // An answer read to its end leaves its connection to be kept; one cut short closes it.
          if (!whole) response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) done(false);
        });
        response.on('end', () => done(true));
        response.on('error', reject);
      },
    );
    started(request);
    request.on('error', (err: NodeJS.ErrnoException) => {
      const stale = request.reusedSocket && !ended() && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      reject(stale ? new StaleConnection(err.message) : err);
    });
    request.end(body);
  });
}
