import { CompiledQuery, sql } from 'kysely';
import t from 'tap';
import { usageWindow } from '../../src/domain/mcp-usage.js';
import { mcpUsageRepository } from '../../src/store/repositories/mcp-usage.js';
import { COMPANY_A, COMPANY_B, UNKNOWN_COMPANY, UNUSED_GUID } from '../fixtures.js';
import { mcpUsageData } from '../fixtures/queries.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal } from '../helper.js';
import { engine } from '../test-store.js';

// GetMcpUsage (GET /assistant/mcp/usage): tokens used in the rolling window against the limit.

const URL = '/assistant/mcp/usage';
/** The app on this moment's usage data; callers without a role unless a call says otherwise. */
const app = (t: Parameters<typeof buildTestApp>[0], config = {}) => buildTestApp(t, { data: mcpUsageData(new Date()), config, as: [] });

const usageOfA = {
  CompanyId: COMPANY_A, TokensUsed: 750, TokenLimit: 1_000_000, TokensRemaining: 999_250, IsWithinBudget: true, WindowDays: 30,
};

t.test('sums the usage inside the window (not older, not future) against the default limit', async (t) => {
  const api = await app(t);
  const res = await api.call('GET', URL);
  t.equal(res.statusCode, 200);
  t.same(res.json(), usageOfA);
});

t.test("a company's own limit overrides MCP_TOKEN_LIMIT; over it, nothing remains", async (t) => {
  const api = await app(t);
  t.same((await api.call('GET', URL, { as: [READ], company: COMPANY_B })).json(), {
    CompanyId: COMPANY_B, TokensUsed: 600, TokenLimit: 500, TokensRemaining: 0, IsWithinBudget: false, WindowDays: 30,
  });
});

t.test('MCP_TOKEN_LIMIT and MCP_WINDOW_DAYS come from the configuration', async (t) => {
  const atLimit = await app(t, { MCP_TOKEN_LIMIT: 750 });
  t.same((await atLimit.call('GET', URL)).json(), { ...usageOfA, TokenLimit: 750, TokensRemaining: 0, IsWithinBudget: false }, 'exactly at the limit');
  const shortWindow = await app(t, { MCP_WINDOW_DAYS: 2 });
  t.same((await shortWindow.call('GET', URL)).json(), { ...usageOfA, TokensUsed: 300, TokensRemaining: 999_700, WindowDays: 2 });
});

t.test('a company without usage has used 0; a limit of 0 leaves no budget', async (t) => {
  const api = await app(t);
  const id = UNUSED_GUID;
  await api.store.db.insertInto('companies').values({ id, name: 'New', mcp_token_limit: 0, created: new Date().toISOString() }).execute();
  t.same((await api.call('GET', `${URL}?CompanyId=${id}`, { as: [SUPERADMIN] })).json(), {
    CompanyId: id, TokensUsed: 0, TokenLimit: 0, TokensRemaining: 0, IsWithinBudget: false, WindowDays: 30,
  });
});

t.test('window edges: a row exactly at the start or at now counts, a millisecond outside does not', async (t) => {
  const api = await buildTestApp(t, { data: { Companies: [{ Id: COMPANY_A, Name: 'A' }, { Id: COMPANY_B, Name: 'B' }] } });
  const now = new Date('2026-05-31T10:00:00.000Z');
  const { from, to } = usageWindow(now, 30);
  const at = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
  await api.store.db.insertInto('mcp_usage').values([
    { company_id: COMPANY_A, tokens_used: 1, at: from },
    { company_id: COMPANY_A, tokens_used: 10, at: at(from, -1) },
    { company_id: COMPANY_A, tokens_used: 100, at: to },
    { company_id: COMPANY_A, tokens_used: 1000, at: at(to, 1) },
    { company_id: COMPANY_B, tokens_used: 10000, at: at(to, -5) },
  ]).execute();
  t.equal(from, '2026-05-01T10:00:00.000Z');
  t.equal(await mcpUsageRepository(api.store).tokensUsed(COMPANY_A, from, to), 101);
});

t.test('an unknown company is 404', async (t) => {
  const api = await app(t);
  const res = await api.call('GET', `${URL}?CompanyId=${UNKNOWN_COMPANY}`, { as: [SUPERADMIN] });
  t.equal(res.statusCode, 404);
  t.same(res.json(), { ResponseStatus: { ErrorCode: 'NotFound', Message: 'Company not found.', Errors: [] } });
  t.equal((await api.call('GET', URL, { as: [WRITE], company: UNKNOWN_COMPANY })).statusCode, 404, "the caller's own company is unknown");
});

t.test('auth: no token is 401; any authenticated caller may ask for its company', async (t) => {
  const api = await app(t);
  expectRefusal(t, await api.call('GET', URL, { as: null }), { status: 401, code: 'Unauthorized' });
  for (const roles of [[], [READ], [WRITE], [SUPERADMIN]]) {
    t.same((await api.call('GET', URL, { as: roles })).json(), usageOfA, roles.join() || 'no role');
  }
});

t.test("auth: another company's CompanyId is 401 unless the caller is superadmin", async (t) => {
  const api = await app(t);
  for (const roles of [[], [READ], [WRITE]]) {
    expectRefusal(t, await api.call('GET', `${URL}?CompanyId=${COMPANY_B}`, { as: roles }), { status: 401, code: 'Unauthorized', name: roles.join() || 'no role' });
  }
  const superadmin = await api.call('GET', `${URL}?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.same([superadmin.statusCode, superadmin.json().TokensUsed, superadmin.json().TokenLimit], [200, 600, 500]);
});

t.test('a malformed CompanyId is 400 for a superadmin, never 500', async (t) => {
  const api = await app(t);
  for (const payload of ["' or 1=1--", 'x;drop table mcp_usage']) {
    expectRefusal(t, await api.call('GET', `${URL}?CompanyId=${encodeURIComponent(payload)}`, { as: [SUPERADMIN] }), { status: 400, field: 'CompanyId', name: payload });
  }
  t.equal((await api.store.db.selectFrom('mcp_usage').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n, 6);
});

t.test('CSV: one header row and one data row', async (t) => {
  const api = await app(t);
  const res = await api.call('GET', `${URL}?format=csv`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-disposition'], 'attachment; filename="GetMcpUsage.csv"');
  t.equal(res.body,
    'CompanyId,TokensUsed,TokenLimit,TokensRemaining,IsWithinBudget,WindowDays,ResponseStatus\r\n' +
    `${COMPANY_A},750,1000000,999250,true,30,\r\n`);
});

t.test('100,000 usage rows: the SUM answers from the (company_id, at) index and the daily roll-up, on either engine', async (t) => {
  const api = await app(t);
  const now = Date.now();
  const rows = Array.from({ length: 100_000 }, (_, i) => ({
    company_id: i % 4 === 0 ? COMPANY_B : COMPANY_A,
    tokens_used: (i % 7) + 1,
    // even rows within the last ~7 days, odd rows 40 to ~47 days ago
    at: new Date(now - 3_600_000 - (i % 2 === 0 ? 0 : 40 * 86_400_000) - i * 6_000).toISOString(),
  }));
  await api.store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 5000) await trx.insertInto('mcp_usage').values(rows.slice(i, i + 5000)).execute();
  });
  const inWindow = rows.filter((row, i) => row.company_id === COMPANY_A && i % 2 === 0);
  const expected = 750 + inWindow.reduce((sum, row) => sum + row.tokens_used, 0);
  const res = await api.call('GET', URL);
  t.equal(res.statusCode, 200);
  t.equal(res.json().TokensUsed, expected);
  t.equal(res.json().TokensRemaining, 1_000_000 - expected);

  const { from, to } = usageWindow(new Date(), 30);
  const query = mcpUsageRepository(api.store).usageStatement(COMPANY_A, from, to);
  const explain = (prefix: string) => api.store.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${prefix} ${query.sql}`, [...query.parameters]));
  if (engine === 'sqlite') {
    const details = (await explain('explain query plan')).rows.map((row) => row.detail).join('\n');
    t.match(details, /SEARCH mcp_usage USING COVERING INDEX mcp_usage_company_at_idx \(company_id=\? AND at>\? AND at<\?\)/, 'edge days from the rows index');
    t.match(details, /SEARCH mcp_usage_daily USING .*INDEX sqlite_autoindex_mcp_usage_daily_1 \(company_id=\? AND day>\? AND day<\?\)/, 'whole days from the roll-up');
    t.notMatch(details, /SCAN (?!CONSTANT ROW)/, 'no table is scanned');
  } else {
    // PostgreSQL plans from statistics: give it those of the table just loaded (autovacuum
    // would, a little later). The roll-up is a few rows a day, which PostgreSQL may rightly
    // read whole; what matters is that the usage rows are never scanned.
    await sql`analyze mcp_usage, mcp_usage_daily`.execute(api.store.db);
    const [{ Plan: plan }] = (await explain('explain (format json)')).rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>;
    const nodes = planNodes(plan);
    const onRows = nodes.filter((node) => node['Relation Name'] === 'mcp_usage' || node['Index Name'] === 'mcp_usage_company_at_idx');
    t.equal(onRows.filter((node) => node['Index Name'] === 'mcp_usage_company_at_idx').length, 2, 'both edge days from the rows index');
    t.notOk(onRows.some((node) => node['Node Type'] === 'Seq Scan'), 'the usage rows are not scanned');
    t.ok(nodes.some((node) => node['Relation Name'] === 'mcp_usage_daily'), 'whole days from the roll-up');
  }
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];
