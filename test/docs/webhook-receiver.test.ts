import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import ts from 'typescript';
import type { components } from '../../src/generated/openapi.js';
import { buildTestApp } from '../helper.js';
import { eventually } from '../webhooks/receiver.js';
import { A, DELIVERY_CONFIG, dataWithEndpoints, secretFor } from '../webhooks/setup.js';

// docs/webhooks.md's receiver in TypeScript works as written: its block type-checks with the
// repository's compiler options against the generated contract types and, run as a
// receiver's own program, takes a delivery the server signs and hands its handler the event,
// refuses a tampered body, and hands a message sent again to its handler only once.

const root = fileURLToPath(new URL('../../', import.meta.url));
const HEADING = '## A receiver in TypeScript';
const GENERATED = "'./src/generated/openapi.js'";

type WebhookEvent = components['schemas']['WebhookEvent'];
/** What the example exports. */
interface Example {
  startReceiver(port: number, secret: string, onEvent?: (event: WebhookEvent) => void | Promise<void>): Promise<Server>;
  summary(event: WebhookEvent): string;
}

/** The ```ts blocks of the section under HEADING. */
function blocks(): string[] {
  const text = readFileSync(join(root, 'docs/webhooks.md'), 'utf8');
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) return [];
  const rest = text.slice(start + HEADING.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) >>> 0);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
}

// The example as a receiver's own project holds it: an ES module beside its packages (the
// repository's), the generated types imported by their absolute path.
const code = blocks()[0] ?? '';
const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
const file = join(dir, 'receiver.ts');
writeFileSync(file, code.replace(GENERATED, `'${join(root, 'src/generated/openapi.js')}'`));

t.test(`docs/webhooks.md has one ts block under "${HEADING}", typed with the generated types`, async (t) => {
  t.equal(blocks().length, 1, 'one block');
  t.match(code, new RegExp(`^import type \\{ [^}]+ \\} from ${GENERATED};$`, 'm'), 'it imports the types npm run generate writes');
  t.match(code, /^import \{ Webhook \} from 'standardwebhooks';$/m, 'it verifies with standardwebhooks');
});

t.test("the example type-checks with the repository's compiler options", async (t) => {
  const tsconfig = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(tsconfig, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig), undefined, tsconfig);
  t.strictSame(parsed.errors, [], 'tsconfig.json parses');
  // Its file is outside the repository, so outside rootDir; nothing is emitted.
  const options = { ...parsed.options, noEmit: true, rootDir: undefined, outDir: undefined };
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram({ rootNames: [file], options })).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `TS${d.code}: ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(dir, '')}(${line + 1},${character + 1}) TS${d.code}: ${message}`;
  });
  t.strictSame(diagnostics, [], 'no diagnostics');
});

t.test('run, the example takes what the server delivers and refuses a tampered body', async (t) => {
  const example = (await import(pathToFileURL(file).href)) as Example;
  const events: WebhookEvent[] = [];
  const secret = secretFor('docs-receiver');
  const server = await example.startReceiver(0, secret, (event) => void events.push(event));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const endpoint = { company: A, id: 'docs-receiver', eventTypes: ['tag.deactivated'], url };
  const api = await buildTestApp(t, { company: A, config: DELIVERY_CONFIG, data: dataWithEndpoints(new URL(url).origin, [endpoint]) });

  const deleted = await api.call('DELETE', '/tags/102');
  t.equal(deleted.statusCode, 200);
  const [event] = await eventually('the example to handle the event', async () => events.length > 0 && events);
  t.match(event, { type: 'tag.deactivated', timestamp: /^\d{4}-\d\d-\d\dT/ });
  t.strictSame(event.data, deleted.json(), "its handler got the write's answer as data");
  t.equal(example.summary(event), 'tag 102 "Regular" deactivated', 'narrowed by type');
  const messages = await eventually('the attempt to be recorded', async () => {
    const results = (await api.call('GET', `/webhook/endpoints/docs-receiver/messages?CompanyId=${A}`)).json().Results;
    return results[0]?.Status === 'Success' && results;
  });
  t.match(messages[0].Attempts, [{ Status: 'Success', ResponseStatusCode: 204 }], 'the example answered 204: delivered');

  // The same message again, as a retry sends it (its webhook-id, a new timestamp), then altered.
  const { Id: id, Payload: payload } = messages[0];
  const send = (body: string, key = secret) => {
    const now = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, now, JSON.stringify(payload)) };
    return fetch(url, { method: 'POST', headers, body }).then((res) => res.status);
  };
  t.equal(await send(JSON.stringify(payload)), 204, 'a retry is taken');
  t.equal(events.length, 1, 'and not handled again');
  t.equal(await send(JSON.stringify({ ...payload, data: { ...payload.data, Active: true } })), 400, 'a tampered body is refused');
  t.equal(await send(JSON.stringify(payload), secretFor('another endpoint')), 400, 'a body signed with another secret is refused');
  t.equal(events.length, 1, 'neither reaches the handler');
});

t.test('a handler that fails answers 500, and the message sent again is handled then', async (t) => {
  const example = (await import(pathToFileURL(file).href)) as Example;
  const secret = secretFor('docs-receiver');
  let calls = 0;
  const server = await example.startReceiver(0, secret, async () => {
    if (++calls === 1) throw new Error('the database is down');
  });
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const body = JSON.stringify({ type: 'tag.deactivated', timestamp: new Date().toISOString(), data: { Id: 1, Name: 'VIP', Active: false } });
  const send = () => {
    const now = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_retry', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_retry', now, body) };
    return fetch(url, { method: 'POST', headers, body }).then((res) => res.status);
  };
  t.equal(await send(), 500, 'not handled: the server is to send it again');
  t.equal(await send(), 204, 'sent again, it is handled');
  t.equal(calls, 2);
});
