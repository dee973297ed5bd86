// `npm run screenshots:oauth`
//
// Takes the pictures of the sign-in and the consent page that docs/mcp.md shows: starts the
// app on 127.0.0.1 (an in-memory store with the demo data), registers a client as an assistant
// does, and walks headless Chromium through its authorization URL to the sign-in page (a
// sign-in token pasted) and the consent page, writing docs/oauth-sign-in.png and
// docs/oauth-consent.png at 800×600. Chromium is PUPPETEER_EXECUTABLE_PATH, else `chromium`
// on PATH (Debian's package).
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { buildApp } from '../src/app.js';
import { mintSignInToken } from '../src/auth/sign-in.js';
import { loadConfig } from '../src/config.js';
import { importData } from '../src/import/import.js';
import { buildDemoData, DEMO_COMPANY_A } from '../src/store/demo-data.js';
import { openStore } from '../src/store/db.js';

const docs = new URL('../docs/', import.meta.url).pathname;
const VIEWPORT = { width: 800, height: 600, deviceScaleFactor: 1 };
/** The assistant the pictures show: a registered client, with its loopback redirect (not listened on). */
const CLIENT = { client_name: 'Example Assistant', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' };

function chromium(): string {
  const command = process.env.PUPPETEER_EXECUTABLE_PATH || 'chromium';
  const candidates = command.includes('/') ? [command] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not this one
    }
  }
  console.error(`Chromium not found (${command}): apt-get install chromium, or set PUPPETEER_EXECUTABLE_PATH`);
  process.exit(1);
}

const executablePath = chromium();
const secret = randomBytes(32).toString('base64url');
const config = loadConfig(
  { DATABASE_URL: 'file::memory:', AUTH_JWT_SECRET: secret, OAUTH_SECRET: secret, LOG_LEVEL: 'warn', DEMO_DATA: false, WEBHOOK_DELIVERY: false },
  {},
);
const store = await openStore(config.DATABASE_URL);
await importData(store, buildDemoData());
const app = await buildApp(config, { store });
await app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const browser = await puppeteer.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
});

try {
  const registered = await fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CLIENT) });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/oauth/authorize', origin);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CLIENT.redirect_uris[0],
    scope: 'booking.read booking.write',
    state: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${origin}/mcp`,
  })) authorize.searchParams.set(name, value);

  const page = await browser.newPage();
  page.setDefaultTimeout(15000);
  await page.setViewport(VIEWPORT);
  await page.goto(authorize.href);
  if ((await page.title()) !== 'Sign in to the Booking Administration API') throw new Error(`not the sign-in page: ${page.url()}`);
  await page.type('textarea#token', await mintSignInToken(secret, { companyId: DEMO_COMPANY_A, roles: ['bookingsupplier-administrator-write'], sub: 'ada' }));
  await page.screenshot({ path: join(docs, 'oauth-sign-in.png'), type: 'png' });
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  if ((await page.title()) !== 'Allow access?') throw new Error(`not the consent page: ${page.url()}`);
  await page.screenshot({ path: join(docs, 'oauth-consent.png'), type: 'png' });
  console.log(`wrote ${join(docs, 'oauth-sign-in.png')} and ${join(docs, 'oauth-consent.png')}`);
} finally {
  await browser.close();
  await app.close();
  await store.close();
}
