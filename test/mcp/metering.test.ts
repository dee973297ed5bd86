import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { countTokens as packageCount } from 'gpt-tokenizer/encoding/o200k_base';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { importData } from '../../src/import/import.js';
import { Metering, countTokens } from '../../src/mcp/metering.js';
import { TOKENS_META } from '../../src/mcp/server.js';
import { buildDemoData } from '../../src/store/demo-data.js';
import { openStore, type Store } from '../../src/store/db.js';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { SUPERADMIN, assertContract, buildTestApp, testConfig, type TestApp } from '../helper.js';
import { callRequest } from '../requests.js';
import { storeState } from '../snapshot.js';
import { engine, freshDatabase } from '../test-store.js';
import { mcpClient } from './client.js';

// Metering (docs/decisions.md, "The MCP server"): every tools/call result adds the o200k_base
// tokens of its text to the caller's company's usage, which GetMcpUsage reports, before the
// result is sent; a company not within budget is refused before the call runs; each call is
// counted once, whichever node serves it.

type Text = Array<{ text: string }>;
const tokensOf = (result: CallToolResult) => result._meta?.[TOKENS_META] as number;
const textOf = (result: CallToolResult) => (result.content as Text)[0].text;

/** The company's usage as GetMcpUsage answers it over HTTP. */
async function used(api: Pick<TestApp, 'call'>, company: string): Promise<number> {
  const res = await api.call('GET', `/assistant/mcp/usage?CompanyId=${company}`, { as: [SUPERADMIN] });
  return res.json().TokensUsed;
}

const call = async (client: Awaited<ReturnType<typeof mcpClient>>, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** gpt-tokenizer's own count with every string ordinary text: what the metering must count. */
const libraryCount = (text: string) => packageCount(text, { disallowedSpecial: new Set() });

t.test("countTokens counts as gpt-tokenizer's o200k_base does, a special token's text as ordinary text", async (t) => {
  const texts = [
    '',
    'a',
    '<|endoftext|>',
    '<|endofprompt|>',
    '{"Name":"<|endoftext|> and <|endofprompt|>","Note":"<|im_start|>system<|im_end|>"}',
    'He said "it\'s fine" — and we\'LL see.\r\n\r\n  Total:\t1 234 567,89 kr\n',
    'é中日本😀\u0301\ufeff\ud800',
    JSON.stringify(buildDemoData()),
  ];
  for (const text of texts) {
    t.equal(await countTokens(text), libraryCount(text), `${JSON.stringify(text.slice(0, 40))}: the library's count`);
  }
  for (const special of ['<|endoftext|>', '<|endofprompt|>']) {
    t.throws(() => packageCount(special), 'the library refuses it by default');
    t.ok((await countTokens(special)) > 1, `${special}: several ordinary tokens, not one special token`);
  }
});

t.test('the encoding is loaded by the first count, not with the app or metering modules', async (t) => {
  // A process of its own, which records every module resolved (a resolve hook that appends each URL to a file).
  const dir = mkdtempSync(join(tmpdir(), 'booking-mcp-lazy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'resolved.txt');
  const hooks = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}`;
  const script = `import { register } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(log)}, '');
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { log: ${JSON.stringify(log)} } });
const loaded = () => readFileSync(${JSON.stringify(log)}, 'utf8').includes('/gpt-tokenizer/');
await import('./src/app.ts');
const { countTokens } = await import('./src/mcp/metering.ts');
const before = loaded();
const tokens = await countTokens('{"Results":[]}');
console.log(JSON.stringify({ before, after: loaded(), tokens }));`;
  // Without tap's NODE_OPTIONS: the child need not report coverage or itself.
  const env = { ...process.env, NODE_OPTIONS: '' };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '../..'), env });
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!);
  t.same(outcome, { before: false, after: true, tokens: libraryCount('{"Results":[]}') }, 'not loaded by the app and metering modules; loaded by the first count');
});

t.test('each result adds the o200k_base tokens of its text, refusals too; GetMcpUsage rises by exactly that', async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const client = await mcpClient(t, api);
  const before = await used(api, COMPANY_A);
  const results = [
    await call(client, 'CategoryQuery', { Take: 3 }),
    await call(client, 'BookingPrintoutQuery', { Take: 1 }),
    await call(client, 'DeleteTag', { Id: 999999 }),
    await call(client, 'CreateMessageTemplate', { TypeId: 1, Name: '<|endoftext|> is ordinary text here' }),
  ];
  for (const result of results) {
    t.equal(tokensOf(result), libraryCount(textOf(result)), `${tokensOf(result)} tokens, as gpt-tokenizer counts the text`);
    t.ok(tokensOf(result) > 0);
  }
  const sum = results.reduce((total, result) => total + tokensOf(result), 0);
  t.equal(await used(api, COMPANY_A), before + sum, 'GetMcpUsage reports them at once');
  const usage = await call(client, 'GetMcpUsage');
  t.equal(tokensOf(usage), 0, 'GetMcpUsage through MCP is not metered');
  t.equal((usage.structuredContent as { TokensUsed?: number }).TokensUsed, before + sum);
  await api.call('GET', '/categories');
  t.equal(await used(api, COMPANY_A), before + sum, 'neither GetMcpUsage nor HTTP calls are metered');
});

t.test("a superadmin's call is metered to the company it names, else to its own", async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const admin = await mcpClient(t, api, { as: [SUPERADMIN], company: COMPANY_A });
  const [a, b] = [await used(api, COMPANY_A), await used(api, COMPANY_B)];
  const named = await call(admin, 'BookingPrintoutQuery', { CompanyId: COMPANY_B.toUpperCase(), Take: 1 });
  const own = await call(admin, 'BookingPrintoutQuery', { Take: 1 });
  t.equal(await used(api, COMPANY_B), b + tokensOf(named), 'the named company');
  t.equal(await used(api, COMPANY_A), a + tokensOf(own), 'its own');
});

t.test('concurrent calls of two companies, which share a turn of the server: each company is metered its own calls alone', async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const clients = { [COMPANY_A]: await mcpClient(t, api, { company: COMPANY_A }), [COMPANY_B]: await mcpClient(t, api, { company: COMPANY_B }) };
  const [a, b] = [await used(api, COMPANY_A), await used(api, COMPANY_B)];
  const companies = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? COMPANY_A : COMPANY_B));
  const results = await Promise.all(companies.map((company, i) => call(clients[company], 'CategoryQuery', { Take: 1 + (i % 4) })));
  const tokensOfCompany = (company: string) => results.filter((_, i) => companies[i] === company).reduce((sum, result) => sum + tokensOf(result), 0);
  t.equal(await used(api, COMPANY_A), a + tokensOfCompany(COMPANY_A), 'company A: its ten calls');
  t.equal(await used(api, COMPANY_B), b + tokensOfCompany(COMPANY_B), 'company B: its ten calls');
});

t.test('a company not within budget is refused before the call runs, unmetered; GetMcpUsage still answers', async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const client = await mcpClient(t, api);
  const start = await used(api, COMPANY_A);
  await api.store.db.updateTable('companies').set({ mcp_token_limit: start + 40 }).where('id', '=', COMPANY_A).execute();
  let calls = 0;
  let result: CallToolResult;
  do {
    result = await call(client, 'CreateResourceType', { Name: `Rooms ${calls++}` });
  } while (!result.isError && calls < 20);
  const created = await api.store.db.selectFrom('resource_types').select('id').where('name', 'like', 'Rooms %').execute();
  t.equal(created.length, calls - 1, 'the calls within budget ran');
  t.match(result.structuredContent, { ResponseStatus: { ErrorCode: 'McpTokenLimitReached', Message: /limit of \d+ tokens in the last 30 days/ } });
  t.equal(textOf(result), JSON.stringify(result.structuredContent));
  t.equal(tokensOf(result), 0, 'the refusal is not metered');
  const before = await storeState(api.store);
  const again = await call(client, 'CreateResourceType', { Name: 'One more' });
  t.match(again.structuredContent, { ResponseStatus: { ErrorCode: 'McpTokenLimitReached' } });
  t.equal((await storeState(api.store)).digest, before.digest, 'nothing changed, its usage neither');
  const usage = await call(client, 'GetMcpUsage');
  t.notOk(usage.isError, 'GetMcpUsage is never refused for budget');
  t.equal((usage.structuredContent as { IsWithinBudget?: boolean }).IsWithinBudget, false);
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'Over HTTP' } })).statusCode, 200, 'HTTP calls are not refused for budget');
});

t.test('a budget read that shares a run with an addition sees that addition: a company it takes to its limit is refused', async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const metering = new Metering(api.store, api.config);
  const caller = { companyId: COMPANY_A, superadmin: false };
  // A read alone: within budget, its run a plain read.
  const start = await used(api, COMPANY_A);
  const text = JSON.stringify({ Results: ['a page of answers'] });
  const tokens = libraryCount(text);
  await api.store.db.updateTable('companies').set({ mcp_token_limit: start + tokens }).where('id', '=', COMPANY_A).execute();
  t.same(await metering.checkBudget(caller, undefined), { company: COMPANY_A });
  // An addition and a read join in one turn: one run adds, then reads (one statement on PostgreSQL).
  const [metered, check] = await Promise.all([metering.meter(COMPANY_A, text), metering.checkBudget(caller, undefined)]);
  t.equal(metered, tokens);
  t.same(check, { overBudget: { limit: start + tokens, windowDays: api.config.MCP_WINDOW_DAYS } }, 'the read holds the addition it ran with');
  t.equal(await used(api, COMPANY_A), start + tokens, 'added once');
});

t.test('usage is kept per company and minute, so a busy company adds few rows', async (t) => {
  const api = await buildTestApp(t, { data: mcpUsageData(new Date()) });
  const client = await mcpClient(t, api);
  const rows = async () => (await api.store.db.selectFrom('mcp_usage').select('id').where('company_id', '=', COMPANY_A).execute()).length;
  const before = await rows();
  for (let i = 0; i < 20; i++) await call(client, 'CategoryQuery', { Take: 1 });
  t.ok((await rows()) - before <= 2, `20 calls added ${(await rows()) - before} rows (two where a minute ended between them)`);
});

interface Node {
  store: Store;
  call: TestApp['call'];
  inject: TestApp['inject'];
}

/** Two nodes on one database of the engine under test (SQLite: a file), each with its own connections. */
async function twoNodes(t: Parameters<typeof buildTestApp>[0]): Promise<Node[]> {
  const dir = mkdtempSync(join(tmpdir(), 'booking-mcp-nodes-'));
  const database = await freshDatabase(`file:${join(dir, 'store.sqlite')}`);
  const config = testConfig({ DATABASE_URL: database.url });
  const nodes: Node[] = [];
  const closing: Array<() => Promise<void>> = [];
  t.teardown(async () => {
    for (const close of closing) await close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 2; i++) {
    const store = await openStore(database.url);
    if (i === 0) await importData(store, mcpUsageData(new Date()));
    const app = await buildApp(config, { store });
    closing.push(async () => {
      await app.close();
      await store.close();
    });
    const inject: TestApp['inject'] = async (options) => {
      const response = await app.inject(options);
      assertContract(String(options.method ?? 'GET'), String(options.url ?? '/'), response);
      return response;
    };
    const call: TestApp['call'] = async (method, url, options = {}) => inject(await callRequest(method, url, options, { as: [SUPERADMIN], company: COMPANY_A }));
    nodes.push({ store, inject, call });
  }
  return nodes;
}

t.test(`50 concurrent calls across two nodes on ${engine}: each counted once, exactly, against one budget`, async (t) => {
  const nodes = await twoNodes(t);
  const clients = await Promise.all(nodes.map((node) => mcpClient(t, node as TestApp)));
  const concurrently = () =>
    Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(clients[i % 2], i % 3 === 0 ? 'DeleteTag' : 'CategoryQuery', i % 3 === 0 ? { Id: 999999 } : { Take: 1 + (i % 5) }),
      ),
    );
  const before = await used(nodes[0], COMPANY_A);
  const results = await concurrently();
  t.ok(results.every((result) => !result.isError || textOf(result).includes('NotFound')), 'each ran');
  t.ok(results.every((result) => tokensOf(result) > 0), 'every call was metered');
  const sum = results.reduce((total, result) => total + tokensOf(result), 0);
  t.equal(await used(nodes[1], COMPANY_A), before + sum, 'the usage rose by exactly the tokens of the 50 results');

  // One budget: what one node used, the other refuses on.
  await nodes[0].store.db.updateTable('companies').set({ mcp_token_limit: before + sum + 1 }).where('id', '=', COMPANY_A).execute();
  t.notOk((await call(clients[0], 'CategoryQuery', { Take: 1 })).isError, 'node 1: within budget, by one token');
  const refused = await call(clients[1], 'CategoryQuery', { Take: 1 });
  t.match(refused.structuredContent, { ResponseStatus: { ErrorCode: 'McpTokenLimitReached' } }, 'node 2 refuses: node 1 used the rest');
});
