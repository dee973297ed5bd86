import fc from 'fast-check';
import { sql } from 'kysely';
import t from 'tap';
import { mcpUsageRepository } from '../../src/store/repositories/mcp-usage.js';
import type { Store } from '../../src/store/db.js';
import { COMPANY_A as A, COMPANY_B as B } from '../fixtures.js';
import { memoryStore } from './store-helper.js';

// The daily roll-up of MCP usage (migration 0003) must always equal the usage rows it
// summarizes, whatever writes them, and a window summed through it must equal the plain
// SUM of the rows in the window.

async function withCompanies(t: Parameters<typeof memoryStore>[0]): Promise<Store> {
  const store = await memoryStore(t);
  const created = '2026-01-01T00:00:00.000Z';
  await store.db.insertInto('companies').values([A, B].map((id) => ({ id, name: id, site_path: null, payment_provider_id: null, mcp_token_limit: null, created }))).execute();
  return store;
}

/** The roll-up as it is, and as the rows say it should be. */
async function rollUp(store: Store) {
  const { rows: kept } = await sql<{ company_id: string; day: string; tokens: number }>`
    select company_id, day, tokens_used as tokens from mcp_usage_daily where tokens_used <> 0 order by 1, 2`.execute(store.db);
  const { rows: derived } = await sql<{ company_id: string; day: string; tokens: number }>`
    select company_id, substr(at, 1, 10) as day, sum(tokens_used) as tokens from mcp_usage group by 1, 2 having sum(tokens_used) <> 0 order by 1, 2`.execute(store.db);
  return { kept, derived };
}

t.test('the roll-up follows inserts, updates and deletes of usage rows', async (t) => {
  const store = await withCompanies(t);
  await store.db.insertInto('mcp_usage').values([
    { company_id: A, tokens_used: 100, at: '2026-03-01T23:59:59.999Z' },
    { company_id: A, tokens_used: 50, at: '2026-03-02T00:00:00.000Z' },
    { company_id: A, tokens_used: 25, at: '2026-03-02T12:00:00.000Z' },
    { company_id: B, tokens_used: 7, at: '2026-03-02T12:00:00.000Z' },
  ]).execute();
  let state = await rollUp(store);
  t.same(state.kept, [
    { company_id: A, day: '2026-03-01', tokens: 100 },
    { company_id: A, day: '2026-03-02', tokens: 75 },
    { company_id: B, day: '2026-03-02', tokens: 7 },
  ], 'inserts are added to their UTC day, per company');

  await store.db.updateTable('mcp_usage').set({ at: '2026-03-03T08:00:00.000Z', tokens_used: 30 }).where('tokens_used', '=', 25).execute();
  await store.db.updateTable('mcp_usage').set({ company_id: B }).where('tokens_used', '=', 100).execute();
  state = await rollUp(store);
  t.same(state.kept, state.derived, 'updates of at, tokens and company move the tokens');
  t.same(state.kept, [
    { company_id: A, day: '2026-03-02', tokens: 50 },
    { company_id: A, day: '2026-03-03', tokens: 30 },
    { company_id: B, day: '2026-03-01', tokens: 100 },
    { company_id: B, day: '2026-03-02', tokens: 7 },
  ]);

  await store.db.deleteFrom('mcp_usage').where('tokens_used', '=', 50).execute();
  state = await rollUp(store);
  t.same(state.kept, state.derived, 'deletes take the tokens away');

  await store.db.deleteFrom('companies').where('id', '=', B).execute();
  const left = await store.db.selectFrom('mcp_usage_daily').select('company_id').distinct().execute();
  t.same(left.map((r) => r.company_id), [A], "deleting a company deletes its roll-up with its rows");
});

t.test('a window summed through the roll-up equals the plain SUM of its rows', async (t) => {
  const store = await withCompanies(t);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const span = 90 * 86_400_000;
  const rows = fc.sample(
    fc.record({ company: fc.constantFrom(A, B), offset: fc.integer({ min: 0, max: span }), tokens: fc.integer({ min: 0, max: 10_000 }) }),
    { numRuns: 3000, seed: 7 },
  ).map((r) => ({ company_id: r.company, tokens_used: r.tokens, at: new Date(start + r.offset).toISOString() }));
  // Rows exactly on midnights and on the window's own edges are where an off-by-one would show.
  rows.push({ company_id: A, tokens_used: 1, at: '2026-02-01T00:00:00.000Z' }, { company_id: A, tokens_used: 2, at: '2026-02-10T12:00:00.000Z' });
  for (let i = 0; i < rows.length; i += 500) await store.db.insertInto('mcp_usage').values(rows.slice(i, i + 500)).execute();
  const usage = mcpUsageRepository(store);
  const plain = (company: string, from: string, to: string) =>
    rows.filter((r) => r.company_id === company && r.at >= from && r.at <= to).reduce((sum, r) => sum + r.tokens_used, 0);

  const windows = [
    ['2026-02-01T00:00:00.000Z', '2026-02-10T12:00:00.000Z'],
    ['2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['2026-02-05T03:00:00.000Z', '2026-02-05T04:00:00.000Z'],
    ['2026-02-05T03:00:00.000Z', '2026-02-06T04:00:00.000Z'],
    ...fc.sample(
      fc.tuple(fc.integer({ min: 0, max: span }), fc.integer({ min: 0, max: 40 * 86_400_000 })),
      { numRuns: 200, seed: 11 },
    ).map(([from, length]) => [new Date(start + from).toISOString(), new Date(start + from + length).toISOString()]),
  ];
  let agreed = 0;
  for (const [from, to] of windows) {
    for (const company of [A, B]) {
      const expected = plain(company, from, to);
      const got = await usage.tokensUsed(company, from, to);
      if (got !== expected) t.fail(`${company} [${from}, ${to}]: ${got}, expected ${expected}`);
      else agreed++;
    }
  }
  t.equal(agreed, windows.length * 2, 'every window agrees');
});

t.test('the migration fills the roll-up from the usage rows already stored', async (t) => {
  const store = await withCompanies(t);
  await store.db.insertInto('mcp_usage').values([
    { company_id: A, tokens_used: 10, at: '2026-03-01T10:00:00.000Z' },
    { company_id: A, tokens_used: 5, at: '2026-03-01T11:00:00.000Z' },
  ]).execute();
  // Back to the schema before 0003 (rows kept), then forward again: the backfill.
  const { migrations } = await import('../../src/store/migrations/index.js');
  await migrations['0003_mcp_usage_daily'].down!(store.db);
  await migrations['0003_mcp_usage_daily'].up(store.db);
  const state = await rollUp(store);
  t.same(state.kept, [{ company_id: A, day: '2026-03-01', tokens: 15 }]);
});

t.test('an addition with the usage read after it: the usage holds the addition once, with or without the minute\'s row', async (t) => {
  const store = await withCompanies(t);
  const usage = mcpUsageRepository(store);
  const [from, to] = ['2026-02-20T10:00:00.000Z', '2026-03-22T10:00:00.000Z'];
  await store.db.insertInto('mcp_usage').values([
    { company_id: A, tokens_used: 40, at: '2026-03-01T10:00:00.000Z' },
    { company_id: B, tokens_used: 9, at: '2026-03-22T09:00:00.000Z' },
  ]).execute();
  await store.db.updateTable('companies').set({ mcp_token_limit: 500 }).where('id', '=', A).execute();

  // The first addition of a minute makes its row; the next adds to it.
  t.same(await usage.recordAndUsage(A, 7, '2026-03-22T09:59:30.000Z', from, to), { limit: 500, used: 47 });
  t.same(await usage.recordAndUsage(A, 5, '2026-03-22T09:59:45.000Z', from, to), { limit: 500, used: 52 });
  t.same(await usage.recordAndUsage(B, 1, '2026-03-22T09:59:50.000Z', from, to), { limit: null, used: 10 }, 'each company its own');
  t.same(await usage.usage(A, from, to), { limit: 500, used: 52 }, 'as a plain read sees it');
  const rows = await store.db.selectFrom('mcp_usage').select(['tokens_used', 'at']).where('company_id', '=', A).orderBy('at').execute();
  t.same(rows, [{ tokens_used: 40, at: '2026-03-01T10:00:00.000Z' }, { tokens_used: 12, at: '2026-03-22T09:59:00.000Z' }], 'one row for the minute');
  const state = await rollUp(store);
  t.same(state.kept, state.derived, 'the roll-up follows');
});
