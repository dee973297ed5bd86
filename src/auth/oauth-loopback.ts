import { request } from 'node:https';
import { isLoopbackHost } from '../config.js';

/**
 * How a client ID metadata document is fetched while OAUTH_CIMD_ALLOW_LOOPBACK is set (tests
 * only; production refuses the switch at start-up): a document on this machine is fetched over
 * its own certificate, not through oidc-provider's guard against special-use addresses;
 * any other goes as it would without the switch.
 */
export function loopbackFetch(url: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const target = new URL(url instanceof Request ? url.url : url);
  if (!isLoopbackHost(target.hostname)) return globalThis.fetch(url, init);
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(new Headers(init.headers));
    const sent = request(target, { method: init.method ?? 'GET', headers, rejectUnauthorized: false, signal: init.signal ?? undefined }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => {
        const names = Object.entries(answer.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]]));
        resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode, headers: names }));
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}
