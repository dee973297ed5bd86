import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import t, { type Test as Tap } from 'tap';
import { mintSignInToken } from '../../src/auth/sign-in.js';
import { buildDemoData, DEMO_COMPANY_A as COMPANY_A } from '../../src/store/demo-data.js';
import { buildTestApp, type TestApp } from '../helper.js';
import { TEST_SECRET, WRITE } from '../requests.js';
import { startServer } from '../robustness/server-process.js';
import { action, Browser, field, form, MemoryProvider, signIn } from './oauth-client.js';

// Stock clients sign in as people will use them (docs/mcp.md, "Connecting an assistant"):
// mcp-remote, the stdio bridge that desktop assistants start for a remote server, through its
// own OAuth flow (dynamic registration, its own loopback callback, the browser opened through
// xdg-open); and a node started as `npm start` starts it, with defaults and no PUBLIC_URL,
// signed in with nothing but a token from `npm run token -- … --sign-in`.

const root = new URL('../../', import.meta.url).pathname;
/** mcp-remote's `mcp-remote` bin (its package.json). */
const MCP_REMOTE = join(root, 'node_modules/mcp-remote/dist/proxy.js');

async function usage(api: TestApp): Promise<number> {
  const response = await api.call('GET', `/assistant/mcp/usage?CompanyId=${COMPANY_A}`, { as: ['superadmin'] });
  return (response.json() as { TokensUsed: number }).TokensUsed;
}

/** Polls `file` until a line is in it (the URL the stand-in browser was given), or fails after `ms`. */
async function firstLine(file: string, ms: number, why: () => string): Promise<string> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // not opened yet
    }
    const line = text.split('\n').find(Boolean);
    if (line) return line;
  }
  throw new Error(`no browser was opened within ${ms} ms\n${why()}`);
}

/** The person's part in the pages, for a client registered by mcp-remote: sign in with `token`, allow; the redirect to its callback. */
async function allow(t: Tap, origin: string, authorizationUrl: string, token: string): Promise<URL> {
  const browser = new Browser();
  let { url, response } = await browser.follow(authorizationUrl, origin);
  let html = await response.text();
  t.match(html, /Sign-in token/, 'the browser shows the sign-in page');
  ({ url, response } = await browser.follow(new URL(action(html)!, url).href, origin, form({ nonce: field(html, 'nonce')!, token })));
  html = await response.text();
  t.match(html, /Allow access\?/, 'then the consent page');
  t.match(html, /<strong>localhost:\d+<\/strong>/, "naming the host of mcp-remote's redirect");
  t.match(html, /“MCP CLI Proxy”, which is not verified/, 'and the name mcp-remote registered, as unverified');
  ({ url, response } = await browser.follow(new URL(action(html)!, url).href, origin, form({ nonce: field(html, 'nonce')!, decision: 'allow' })));
  t.equal(response.status, 303);
  return new URL(url);
}

t.test('mcp-remote 0.15, through its own OAuth flow: registers, opens the browser, takes the callback, then lists and calls tools over stdio', async (t) => {
  if (process.platform !== 'linux') return t.plan(0, 'the stand-in browser is an xdg-open, which mcp-remote uses on Linux');
  const api = await buildTestApp(t, { data: buildDemoData() });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;

  // Its own home and configuration directory: nothing is read from or written to the real ones.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [bin, home, config, opened] = [join(dir, 'bin'), join(dir, 'home'), join(dir, 'config'), join(dir, 'opened')];
  mkdirSync(bin);
  mkdirSync(home);
  // The browser: mcp-remote opens the URL with the `open` package, which runs an xdg-open (its
  // own copy, else the one on PATH); on a machine without a desktop that runs $BROWSER. Each
  // stand-in writes the URL for this test, which then plays the person in that browser.
  const standIn = `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`;
  for (const name of ['xdg-open', 'browser']) {
    writeFileSync(join(bin, name), standIn);
    chmodSync(join(bin, name), 0o755);
  }

  const transport = new StdioClientTransport({
    command: process.execPath,
    // 120 s to sign in rather than 30: the test's person is quick, a loaded machine may not be.
    args: [MCP_REMOTE, `${origin}/mcp`, '--auth-timeout', '120'],
    env: { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, BROWSER: join(bin, 'browser'), MCP_REMOTE_CONFIG_DIR: config },
    cwd: dir,
    stderr: 'pipe',
  });
  let logs = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    logs = (logs + chunk.toString()).slice(-20000);
  });
  const client = new Client({ name: 'stock-client-test', version: '1.0.0' });
  t.teardown(() => client.close());
  // The client's initialize waits in the pipe until mcp-remote has signed in and connected.
  let connectError: unknown;
  const connected = client.connect(transport, { timeout: 150_000 }).then(
    () => true,
    (err: unknown) => {
      connectError = err;
      return false;
    },
  );

  const authorizationUrl = new URL(await firstLine(opened, 60_000, () => `mcp-remote said:\n${logs}${connectError ? `\n${String(connectError)}` : ''}`));
  t.equal(authorizationUrl.origin + authorizationUrl.pathname, `${origin}/oauth/authorize`, 'mcp-remote opened this node’s authorization endpoint');
  t.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  t.equal(authorizationUrl.searchParams.get('resource'), `${origin}/mcp`, 'for the MCP resource');
  const redirectUri = new URL(authorizationUrl.searchParams.get('redirect_uri')!);
  t.match(redirectUri.href, /^http:\/\/localhost:\d+\/oauth\/callback$/, 'to its own loopback callback');
  t.notMatch(authorizationUrl.searchParams.get('client_id'), /^https:/, 'as a client it registered (no metadata document)');

  const token = await mintSignInToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'ada' });
  const callback = await allow(t, origin, authorizationUrl.href, token);
  t.equal(callback.origin + callback.pathname, redirectUri.href, 'the consent sends the browser to mcp-remote’s callback');
  t.equal(callback.searchParams.get('iss'), origin, 'RFC 9207: with the issuer');
  t.equal(callback.searchParams.get('state'), authorizationUrl.searchParams.get('state'), 'and its state');
  // mcp-remote listens on 127.0.0.1, where a browser reaches `localhost` too.
  callback.hostname = '127.0.0.1';
  const delivered = await fetch(callback);
  t.equal(delivered.status, 200, `mcp-remote took the code (${await delivered.text().then((text) => text.slice(0, 80))})`);

  if (!(await connected)) return t.fail(`mcp-remote did not connect: ${String(connectError)}\n${logs}`);
  t.pass('the client connected through mcp-remote');
  const saved = readdirSync(join(config, 'mcp-remote-v1'));
  t.ok(saved.some((name) => name.endsWith('_tokens.json')), 'mcp-remote keeps its tokens in its own configuration directory');
  t.same(readdirSync(home), [], 'and nothing in the home directory');

  const { tools } = await client.listTools();
  t.ok(tools.some((tool) => tool.name === 'CreateResourceType'), 'the write tools are listed');
  t.ok(tools.some((tool) => tool.name === 'BillingMethodQuery'), 'and the reads');
  const before = await usage(api);
  const result = await client.callTool({ name: 'BillingMethodQuery', arguments: {} });
  t.notOk(result.isError, 'the tool ran');
  t.match(result, { content: [{ type: 'text' }] }, 'with an answer');
  t.ok((await usage(api)) > before, "the call is metered to the signed-in person's company");
  await client.close();
});

t.test('tried as a new user would: `npm start` with defaults, `npm run token -- … --sign-in`, the token pasted, a tool called', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-new-user-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A SQLite file with the demo data (DEMO_DATA's default), no PUBLIC_URL: the node serves OAuth on loopback.
  const env = { DATABASE_URL: `file:${join(dir, 'booking.sqlite')}` };
  const server = await startServer(env);
  t.teardown(() => server.stop());
  const origin = server.url;
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
  t.match(metadata, { resource: `${origin}/mcp`, authorization_servers: [origin] }, 'the node names itself the authorization server of its /mcp');

  // docs/mcp.md's command, as the person runs it beside the server's database.
  const minted = spawnSync('npm', ['run', '--silent', 'token', '--', '--company', COMPANY_A, '--role', WRITE, '--sub', 'ada', '--sign-in'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  t.equal(minted.status, 0, minted.stderr);
  const lines = minted.stdout.split('\n').filter(Boolean);
  t.equal(lines.length, 1, 'npm run token prints the token alone');

  const mcp = new URL('/mcp', origin);
  const provider = new MemoryProvider('http://127.0.0.1:1/callback');
  const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider });
  await t.rejects(new Client({ name: 'assistant', version: '1.0.0' }).connect(transport), UnauthorizedError, 'the client is sent to sign in');
  const callback = await signIn(t, origin, provider.authorizationUrl!, lines[0]);
  t.equal(callback.searchParams.get('iss'), origin);
  await transport.finishAuth(callback.searchParams);
  t.ok(provider.saved?.access_token && provider.saved.refresh_token, 'an access and a refresh token');

  const client = new Client({ name: 'assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
  const { tools } = await client.listTools();
  t.ok(tools.some((tool) => tool.name === 'BillingMethodQuery'), 'the tools are listed');
  const result = await client.callTool({ name: 'BillingMethodQuery', arguments: {} });
  t.notOk(result.isError, 'a tool call runs');
  await client.close();
  t.equal(await server.stop(), 0, 'SIGTERM stops the server cleanly');
});
