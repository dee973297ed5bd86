import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from '../statements.js';
import { companyId } from './helpers.js';

/**
 * Each company's MCP tokens per UTC day, so that GetMcpUsage's window reads one row a day
 * plus its two edge days' rows (domain/mcp-usage.ts, windowParts). Triggers keep the totals
 * in step with every write of `mcp_usage`, in its transaction; a row's day is the first ten
 * characters of its ISO UTC `at` (docs/decisions.md, "The MCP server").
 */
export const mcpUsageDaily: Migration = {
  async up(db) {
    await db.schema
      .createTable('mcp_usage_daily')
      .addColumn('company_id', 'text', companyId)
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('tokens_used', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('mcp_usage_daily_pk', ['company_id', 'day'])
      .execute();
    await sql`insert into mcp_usage_daily (company_id, day, tokens_used)
      select company_id, substr(at, 1, 10), sum(tokens_used) from mcp_usage group by company_id, substr(at, 1, 10)`.execute(db);
    await (isPostgres(db) ? postgresTriggers(db) : sqliteTriggers(db));
  },
  async down(db) {
    if (isPostgres(db)) {
      await sql`drop trigger if exists mcp_usage_daily_sync on mcp_usage`.execute(db);
      await sql`drop function if exists mcp_usage_daily_sync()`.execute(db);
    } else {
      for (const name of ['insert', 'delete', 'update']) await sql`drop trigger if exists ${sql.raw(`mcp_usage_daily_${name}`)}`.execute(db);
    }
    await db.schema.dropTable('mcp_usage_daily').ifExists().execute();
  },
};

/** Adds `tokens` to a company's day (a statement both engines accept). */
const addTo = (company: string, at: string, tokens: string) =>
  `insert into mcp_usage_daily (company_id, day, tokens_used) values (${company}, substr(${at}, 1, 10), ${tokens})
     on conflict (company_id, day) do update set tokens_used = mcp_usage_daily.tokens_used + excluded.tokens_used;`;

const takeFrom = (company: string, at: string, tokens: string) =>
  `update mcp_usage_daily set tokens_used = tokens_used - ${tokens} where company_id = ${company} and day = substr(${at}, 1, 10);`;

async function sqliteTriggers(db: Kysely<any>) {
  await sql.raw(`create trigger mcp_usage_daily_insert after insert on mcp_usage begin
    ${addTo('new.company_id', 'new.at', 'new.tokens_used')}
  end`).execute(db);
  await sql.raw(`create trigger mcp_usage_daily_delete after delete on mcp_usage begin
    ${takeFrom('old.company_id', 'old.at', 'old.tokens_used')}
  end`).execute(db);
  await sql.raw(`create trigger mcp_usage_daily_update after update of company_id, at, tokens_used on mcp_usage begin
    ${takeFrom('old.company_id', 'old.at', 'old.tokens_used')}
    ${addTo('new.company_id', 'new.at', 'new.tokens_used')}
  end`).execute(db);
}

async function postgresTriggers(db: Kysely<any>) {
  await sql.raw(`create function mcp_usage_daily_sync() returns trigger language plpgsql as $$
  begin
    if tg_op in ('UPDATE', 'DELETE') then
      ${takeFrom('old.company_id', 'old.at', 'old.tokens_used')}
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
      ${addTo('new.company_id', 'new.at', 'new.tokens_used')}
    end if;
    return null;
  end $$`).execute(db);
  await sql`create trigger mcp_usage_daily_sync after insert or update or delete on mcp_usage
    for each row execute function mcp_usage_daily_sync()`.execute(db);
}
