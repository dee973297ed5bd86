import type { AliasedSelectQueryBuilder, Kysely, QueryCreator } from 'kysely';
import { windowParts, type WindowParts } from '../../domain/mcp-usage.js';
import type { Store } from '../db.js';
import { isPostgres, statementWithRetries } from '../statements.js';
import { prepared, preparedVariants, type Placeholders } from '../prepared.js';
import type { Database } from '../schema.js';

/**
 * The values of a window's partial sums (windowParts): the edge days' ranges of usage rows
 * (one range when the window is within a day) and the whole days between, from the daily
 * roll-up. The shape is how many of each there are.
 */
interface WindowValues {
  companyId: string;
  headFrom: string;
  headTo: string;
  tailFrom?: string;
  tailTo?: string;
  firstDay?: string;
  lastDay?: string;
}

type Shape = 'one' | 'two' | 'two+days';

function windowOf(companyId: string, from: string, to: string): { shape: Shape; values: WindowValues } {
  const parts: WindowParts = windowParts(from, to);
  const [head, tail] = parts.rows;
  const values: WindowValues = {
    companyId,
    headFrom: head.from,
    headTo: head.to,
    tailFrom: tail?.from,
    tailTo: tail?.to,
    firstDay: parts.days?.first,
    lastDay: parts.days?.last,
  };
  return { shape: !tail ? 'one' : parts.days ? 'two+days' : 'two', values };
}

/**
 * The partial sums of a window shape as scalar subqueries: SUM of the usage rows with `at` in
 * a range (the (company_id, at, tokens_used) index covers it), SUM of the daily totals of the
 * whole days (the primary key covers it). A window within one day includes its end; the head
 * of a longer one ends before the midnight where the tail begins.
 */
function windowSums(db: Kysely<Database>, p: Placeholders<WindowValues>, shape: Shape) {
  const rowsSum = (from: string, to: string, toIncluded: boolean) =>
    db
      .selectFrom('mcp_usage')
      .select((eb) => eb.fn.sum<number | string | null>('tokens_used').as('used'))
      .where('company_id', '=', p.companyId)
      .where('at', '>=', from)
      .where('at', toIncluded ? '<=' : '<', to);
  const sums: AliasedSelectQueryBuilder<{ used: number | string | null }, string>[] = [rowsSum(p.headFrom, p.headTo, shape === 'one').as('s0')];
  if (shape !== 'one') sums.push(rowsSum(p.tailFrom!, p.tailTo!, true).as('s1'));
  if (shape === 'two+days') {
    sums.push(
      db
        .selectFrom('mcp_usage_daily')
        .select((eb) => eb.fn.sum<number | string | null>('tokens_used').as('used'))
        .where('company_id', '=', p.companyId)
        .where('day', '>=', p.firstDay!)
        .where('day', '<=', p.lastDay!)
        .as('s2'),
    );
  }
  return sums;
}

/** The company's limit and its tokens used in a window, in one statement; no row when the company is unknown. */
const usageQueries = preparedVariants(
  (shape: Shape) => shape,
  (shape) =>
    prepared((db, p: Placeholders<WindowValues>) =>
      db.selectFrom('companies').select('mcp_token_limit').select(windowSums(db, p, shape)).where('id', '=', p.companyId),
    ),
);

const tokensQueries = preparedVariants(
  (shape: Shape) => shape,
  (shape) => prepared((db, p: Placeholders<WindowValues>) => db.selectNoFrom(windowSums(db, p, shape))),
);

type MinuteValues = { companyId: string; tokens: number; minute: string };

/** The minute's row an addition at `at` (ISO UTC) goes to. */
const minuteOf = (at: string) => `${at.slice(0, 16)}:00.000Z`;

/** The company's minute's row (the first, if two first calls made two) plus the tokens. */
const addition = (db: QueryCreator<Database>, p: Placeholders<MinuteValues>) =>
  db
    .updateTable('mcp_usage')
    .set((eb) => ({ tokens_used: eb('tokens_used', '+', p.tokens) }))
    .where('id', '=', () =>
      db.selectFrom('mcp_usage').select('id').where('company_id', '=', p.companyId).where('at', '=', p.minute).orderBy('id').limit(1),
    );

/**
 * The MCP server's metering keeps one usage row per company and minute (docs/decisions.md,
 * "The MCP server"): a call adds its tokens to its minute's row, or makes that row. Each is
 * one statement that adds exactly this call's tokens whatever runs beside it on any node (two
 * first calls of a minute may make two rows; the sums stay exact), and the daily roll-up's
 * triggers keep the day in step (migration 0003). So a busy company has at most 1,440 rows a
 * day, and the window's sum, which reads its two edge days row by row, stays cheap.
 */
const addToMinute = prepared((db, p: Placeholders<MinuteValues>) => addition(db, p));

/**
 * PostgreSQL: the addition to the minute's row and the window's usage in ONE statement (the
 * addition a data-modifying CTE). The usage is read in the statement's snapshot, which does
 * not hold the addition: `added` says whether it found the minute's row.
 */
const addAndUsageQueries = preparedVariants(
  (shape: Shape) => shape,
  (shape) =>
    prepared((db, p: Placeholders<MinuteValues & WindowValues>) =>
      db
        .with('added', (creator) => addition(creator, p).returning('id'))
        .selectFrom('companies')
        .select('mcp_token_limit')
        .select((eb) => eb.selectFrom('added').select((ea) => ea.fn.countAll<number | string>().as('n')).as('added'))
        .select(windowSums(db, p, shape))
        .where('id', '=', p.companyId),
    ),
);

const newMinute = prepared((db, p: Placeholders<MinuteValues>) =>
  db.insertInto('mcp_usage').values({ company_id: p.companyId, tokens_used: p.tokens, at: p.minute }),
);

/** No rows: SUM is null. PostgreSQL answers a bigint sum as numeric (read as a number by the engine). */
const total = (sums: Record<string, unknown>) => Object.values(sums).reduce<number>((sum, used) => sum + Number(used ?? 0), 0);

/** A company's own limit (null: the server default applies) and its tokens used in a window. */
export type McpUsage = { limit: number | null; used: number };

/** MCP token usage records and the company limit they are measured against. */
export function mcpUsageRepository({ db }: Store) {
  const repository = {
    /** The statement `usage` sends for this window (to explain its plan). */
    usageStatement(companyId: string, from: string, to: string) {
      const { shape, values } = windowOf(companyId, from, to);
      return usageQueries(shape).compile(db, values);
    },

    /** The company's own limit (null: the server default applies) and its tokens used in [from, to]; undefined: no such company. */
    async usage(companyId: string, from: string, to: string): Promise<McpUsage | undefined> {
      const { shape, values } = windowOf(companyId, from, to);
      const row = await usageQueries(shape).takeFirst(db, values);
      if (!row) return undefined;
      const { mcp_token_limit: limit, ...sums } = row;
      return { limit, used: total(sums) };
    },

    /** Adds `tokens` used at `at` (ISO UTC) to the company's usage, in the row of that minute. */
    async record(companyId: string, tokens: number, at: string): Promise<void> {
      const values = { companyId, tokens, minute: minuteOf(at) };
      const { numAffectedRows } = await statementWithRetries(db, () => addToMinute.run(db, values));
      if (!numAffectedRows) await statementWithRetries(db, () => newMinute.run(db, values));
    },

    /**
     * Adds `tokens` used at `at`, as `record` does, and answers the company's limit and its
     * tokens used in [from, to], the addition included (as `usage` does): one statement on
     * PostgreSQL while the minute's row exists, the two in turn on SQLite.
     */
    async recordAndUsage(companyId: string, tokens: number, at: string, from: string, to: string): Promise<McpUsage | undefined> {
      if (!isPostgres(db)) {
        await repository.record(companyId, tokens, at);
        return repository.usage(companyId, from, to);
      }
      const minute = minuteOf(at);
      const { shape, values } = windowOf(companyId, from, to);
      const row = await statementWithRetries(db, () => addAndUsageQueries(shape).takeFirst(db, { ...values, tokens, minute }));
      if (!row) return undefined;
      const { mcp_token_limit: limit, added, ...sums } = row;
      if (!Number(added)) await statementWithRetries(db, () => newMinute.run(db, { companyId, tokens, minute }));
      return { limit, used: total(sums) + tokens };
    },

    async tokensUsed(companyId: string, from: string, to: string): Promise<number> {
      const { shape, values } = windowOf(companyId, from, to);
      return total((await tokensQueries(shape).takeFirst(db, values)) ?? {});
    },
  };
  return repository;
}

