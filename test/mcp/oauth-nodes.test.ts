import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { openStore } from '../../src/store/db.js';
import { importData } from '../../src/import/import.js';
import { testConfig } from '../helper.js';
import { TEST_SECRET, WRITE } from '../requests.js';
import { freshDatabase, engine } from '../test-store.js';
import { MemoryProvider, signIn } from './oauth-client.js';

// Any node serves any step of a sign-in (docs/decisions.md, "Assistants sign in with OAuth"):
// two nodes on one database behind a balancer that sends each request to the next node, so the
// sign-in page and its form post, the consent page and its post, the code exchange, the
// refresh and the calls each reach a node the step before did not.

/** A round-robin balancer on 127.0.0.1 in front of the nodes whose ports `ports` holds (filled once it listens). */
async function balancer(ports: number[]): Promise<{ server: Server; origin: string; taken: number[] }> {
  const taken: number[] = [];
  const server = createServer((incoming, outgoing) => {
    const node = taken.length % ports.length;
    taken.push(node);
    const proxied = forward({ host: '127.0.0.1', port: ports[node], method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, taken };
}

t.test(`two nodes on ${engine} behind a balancer: every step on another node, from sign-in to refresh`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-oauth-nodes-'));
  const database = await freshDatabase(`file:${join(dir, 'store.sqlite')}`);
  // The balancer listens first: its origin is the nodes' PUBLIC_URL.
  const ports: number[] = [];
  const front = await balancer(ports);
  const config = testConfig({ DATABASE_URL: database.url, PUBLIC_URL: front.origin });
  const closing: Array<() => Promise<unknown>> = [];
  t.teardown(async () => {
    front.server.closeAllConnections();
    await new Promise((resolve) => front.server.close(resolve));
    for (const close of closing) await close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 2; i++) {
    const store = await openStore(database.url);
    if (i === 0) await importData(store, buildDemoData());
    const app = await buildApp(config, { store });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closing.push(async () => {
      await app.close();
      await store.close();
    });
    ports.push((app.server.address() as AddressInfo).port);
  }

  const mcp = new URL('/mcp', front.origin);
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError);
  const callback = await signIn(t, front.origin, provider.authorizationUrl!, await mintSignInToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [WRITE], sub: 'ada' }));
  await transport.finishAuth(callback.searchParams);
  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  t.teardown(() => client.close());
  for (let i = 0; i < 4; i++) t.notOk((await client.callTool({ name: 'BillingMethodQuery', arguments: {} })).isError, `call ${i + 1}`);

  // The refresh, on whichever node is next; then the new access token on both.
  const before = provider.saved!;
  const refreshed = await fetch(new URL('/oauth/token', front.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: provider.client!.client_id }).toString(),
  });
  t.equal(refreshed.status, 200, 'the refresh');
  const tokens = (await refreshed.json()) as { access_token: string; refresh_token: string };
  t.not(tokens.refresh_token, before.refresh_token, 'rotated');
  for (let i = 0; i < 2; i++) {
    const ping = await fetch(mcp, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens.access_token}`, 'mcp-protocol-version': '2025-11-25' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    t.equal(ping.status, 200, `the refreshed token on node ${front.taken.at(-1)}`);
  }
  t.ok(front.taken.includes(0) && front.taken.includes(1), `both nodes served (${front.taken.join('')})`);
});
