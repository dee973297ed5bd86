import t from 'tap';
import { budget, tokenLimit, usageWindow, windowParts } from '../../src/domain/mcp-usage.js';

// The MCP budget rules (the contract's GetMcpUsage), without HTTP or store.

t.test('the window is [now − WindowDays days, now] in ISO UTC', async (t) => {
  const now = new Date('2026-03-31T12:00:00.000Z');
  t.same(usageWindow(now, 30), { from: '2026-03-01T12:00:00.000Z', to: '2026-03-31T12:00:00.000Z' });
  t.same(usageWindow(now, 1), { from: '2026-03-30T12:00:00.000Z', to: '2026-03-31T12:00:00.000Z' });
});

t.test('the window counts whole 24-hour days across a DST change (UTC)', async (t) => {
  t.same(usageWindow(new Date('2026-03-30T01:30:00.000Z'), 2).from, '2026-03-28T01:30:00.000Z');
});

t.test("the company's limit overrides the default, even a limit of 0", async (t) => {
  t.equal(tokenLimit(500, 1_000_000), 500);
  t.equal(tokenLimit(0, 1_000_000), 0);
  t.equal(tokenLimit(null, 1_000_000), 1_000_000);
  t.equal(tokenLimit(undefined, 42), 42);
});

t.test('below the limit: within budget, the difference remaining', async (t) => {
  t.same(budget(750, 1000), { TokensUsed: 750, TokenLimit: 1000, TokensRemaining: 250, IsWithinBudget: true });
  t.same(budget(0, 1000), { TokensUsed: 0, TokenLimit: 1000, TokensRemaining: 1000, IsWithinBudget: true });
  t.same(budget(999, 1000).IsWithinBudget, true);
});

t.test('exactly at the limit: not within budget, nothing remaining', async (t) => {
  t.same(budget(1000, 1000), { TokensUsed: 1000, TokenLimit: 1000, TokensRemaining: 0, IsWithinBudget: false });
});

t.test('over the limit: remaining is 0, never negative', async (t) => {
  t.same(budget(1600, 500), { TokensUsed: 1600, TokenLimit: 500, TokensRemaining: 0, IsWithinBudget: false });
});

t.test('a limit of 0 leaves no budget even unused', async (t) => {
  t.same(budget(0, 0), { TokensUsed: 0, TokenLimit: 0, TokensRemaining: 0, IsWithinBudget: false });
});

t.test('sums beyond 32 bits stay exact', async (t) => {
  t.same(budget(5_000_000_000, 2_147_483_647).TokensRemaining, 0);
  t.same(budget(1, 2_147_483_647).TokensRemaining, 2_147_483_646);
});

t.test('a window is summed as two partial edge days of rows and the whole days between', async (t) => {
  t.same(windowParts('2026-03-01T12:00:00.000Z', '2026-03-31T08:15:00.000Z'), {
    rows: [
      { from: '2026-03-01T12:00:00.000Z', to: '2026-03-02T00:00:00.000Z', toIncluded: false },
      { from: '2026-03-31T00:00:00.000Z', to: '2026-03-31T08:15:00.000Z', toIncluded: true },
    ],
    days: { first: '2026-03-02', last: '2026-03-30' },
  });
});

t.test('a window inside one day is read from its rows alone', async (t) => {
  t.same(windowParts('2026-03-01T01:00:00.000Z', '2026-03-01T23:00:00.000Z'), {
    rows: [{ from: '2026-03-01T01:00:00.000Z', to: '2026-03-01T23:00:00.000Z', toIncluded: true }],
  });
});

t.test('a window over two neighbouring days has no whole day between its edges', async (t) => {
  t.same(windowParts('2026-03-01T12:00:00.000Z', '2026-03-02T06:00:00.000Z'), {
    rows: [
      { from: '2026-03-01T12:00:00.000Z', to: '2026-03-02T00:00:00.000Z', toIncluded: false },
      { from: '2026-03-02T00:00:00.000Z', to: '2026-03-02T06:00:00.000Z', toIncluded: true },
    ],
  });
});

t.test('a window starting at midnight still reads its first day from rows (the edge starts it)', async (t) => {
  const parts = windowParts('2026-02-28T00:00:00.000Z', '2026-03-02T00:00:00.000Z');
  t.same(parts.rows[0], { from: '2026-02-28T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z', toIncluded: false });
  t.same(parts.days, { first: '2026-03-01', last: '2026-03-01' }, 'across the end of February');
  t.same(parts.rows[1], { from: '2026-03-02T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z', toIncluded: true });
});
