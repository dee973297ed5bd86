import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type LogConfig } from 'kysely';
import pg from 'pg';
import t from 'tap';
import { Refusal } from '../../src/domain/refusals.js';
import { toApiError } from '../../src/contract/errors.js';
import { nullable, pageWindow, parseOrdering, preparedPages } from '../../src/store/paging.js';
import { engine, freshDatabase } from '../test-store.js';

// The shared Skip/Take/OrderBy implementation (the contract's paging parameters; Take as
// docs/decisions.md, "Limits" bounds it), without HTTP, on the engine under test.

interface ItemsDb {
  items: { id: number; name: string; note: string | null };
}

const sortable = { Id: 'id', Name: 'name', Note: nullable('note') };

/** Pages of the scratch items, all of them or those of one name. */
const items = preparedPages<ItemsDb, 'items', { name?: string }, ItemsDb['items']>({
  shape: (filter) => (filter.name !== undefined ? 'name' : ''),
  from: (db, p, shape) => (shape === 'name' ? db.selectFrom('items').where('name', '=', p.name!) : db.selectFrom('items')),
  select: (q) => q.selectAll(),
  sortable,
  tiebreak: 'id',
});
const PARAMETER = engine === 'postgres' ? '\\$\\d+' : '\\?';

/** A Kysely on a scratch database of the engine under test, closed when the test ends. */
async function scratchDb(t: { teardown(fn: () => unknown): void }, log: LogConfig): Promise<Kysely<ItemsDb>> {
  if (engine === 'sqlite') {
    const db = new Kysely<ItemsDb>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }), log });
    t.teardown(() => db.destroy());
    return db;
  }
  const database = await freshDatabase();
  const db = new Kysely<ItemsDb>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }), log });
  t.teardown(async () => {
    await db.destroy();
    await database.drop();
  });
  return db;
}

/**
 * A scratch table of `count` items (names repeat every 3; every third note is NULL, the
 * others repeat every 2) and a log of the SQL sent.
 */
async function scratch(t: { teardown(fn: () => unknown): void }, count: number) {
  const statements: string[] = [];
  const db = await scratchDb(t, (event) => void statements.push(event.query.sql));
  await db.schema.createTable('items').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text', (c) => c.notNull()).addColumn('note', 'text').execute();
  const rows = Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `n${i % 3}`, note: i % 3 === 2 ? null : `m${i % 2}` }));
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('items').values(rows.slice(i, i + 500)).execute();
  statements.length = 0;
  return { db, statements };
}

t.test('Skip defaults to 0 and Take to 100; Take is capped at 1000', async (t) => {
  t.same(pageWindow({}), { offset: 0, limit: 100 });
  t.same(pageWindow({ Skip: null, Take: null }), { offset: 0, limit: 100 });
  t.same(pageWindow({ Skip: 7, Take: 3 }), { offset: 7, limit: 3 });
  t.same(pageWindow({ Take: 1000 }), { offset: 0, limit: 1000 });
  t.same(pageWindow({ Take: 1001 }), { offset: 0, limit: 1000 });
  t.same(pageWindow({ Take: 0 }), { offset: 0, limit: 0 });
  t.same(pageWindow({ Skip: -5, Take: -1 }), { offset: 0, limit: 0 }, 'negatives never reach SQL');
});

t.test('OrderBy fields are comma-separated, case-insensitive, and a - prefix inverts one', async (t) => {
  t.same(parseOrdering({ OrderBy: 'name, -ID' }, sortable), [
    { column: 'name', direction: 'asc' },
    { column: 'id', direction: 'desc' },
  ]);
});

t.test('OrderByDesc orders descending, a - prefix ascending, after OrderBy', async (t) => {
  t.same(parseOrdering({ OrderBy: 'Name', OrderByDesc: 'Id' }, sortable), [
    { column: 'name', direction: 'asc' },
    { column: 'id', direction: 'desc' },
  ]);
  t.same(parseOrdering({ OrderByDesc: '-Name' }, sortable), [{ column: 'name', direction: 'asc' }]);
});

t.test('blank items are skipped and a repeated field keeps its first direction', async (t) => {
  t.same(parseOrdering({ OrderBy: ' , Name,,', OrderByDesc: 'Name' }, sortable), [{ column: 'name', direction: 'asc' }]);
  t.same(parseOrdering({}, sortable), []);
});

t.test('an unknown field is 400 InvalidOrderBy naming the parameter', async (t) => {
  for (const [request, parameter] of [
    [{ OrderBy: 'Id;drop table items' }, 'OrderBy'],
    [{ OrderBy: 'name desc--' }, 'OrderBy'],
    [{ OrderByDesc: "'" }, 'OrderByDesc'],
    [{ OrderBy: 'Id', OrderByDesc: 'Name,Color' }, 'OrderByDesc'],
  ] as const) {
    const error = t.throws(() => parseOrdering(request, sortable)) as unknown as Refusal;
    t.ok(error instanceof Refusal);
    t.equal(error.kind, 'validation');
    t.equal(toApiError(error)?.statusCode, 400, 'answered 400 by the error plugin');
    t.equal(error.errorCode, 'InvalidOrderBy');
    t.equal(error.errors[0].FieldName, parameter);
    t.match(error.message, /use one of: Id, Name, Note\.$/);
  }
});

t.test('a page is one LIMIT/OFFSET select that carries the total, never every row', async (t) => {
  const { db, statements } = await scratch(t, 2500);
  const page = await items(db, {}, { Take: 5000, Skip: 10 });
  t.equal(page.total, 2500);
  t.equal(page.offset, 10);
  t.equal(page.rows.length, 1000, 'Take capped at 1000');
  t.same(page.rows[0], { id: 11, name: 'n1', note: 'm0' }, 'the total is not a field of the rows');
  t.equal(statements.length, 1);
  t.match(
    statements[0],
    new RegExp(`^select \\*, \\(select count\\(\\*\\) as "total" from "items"\\) as "page_total" from "items" order by "id" asc limit ${PARAMETER} offset ${PARAMETER}$`),
  );
});

// SQLite's plan says it outright; PostgreSQL's planner picks by table size, so a scratch table
// of a few hundred rows proves nothing there.
if (engine === 'sqlite') {
  t.test('the total does not keep a page from walking an index in order and stopping at LIMIT', async (t) => {
    const { db, statements } = await scratch(t, 300);
    await db.schema.createIndex('items_name_idx').on('items').columns(['name', 'id']).execute();
    statements.length = 0;
    await items(db, {}, { OrderBy: 'Name', Take: 5 });
    let next = 0;
    const page = statements[0].replace(/\?/g, () => String([5, 0][next++]));
    const { rows } = await sql.raw<{ detail: string }>(`explain query plan ${page}`).execute(db);
    const plan = rows.map((row) => row.detail).join('; ');
    t.match(plan, /items_name_idx/, `the name index orders the page: ${plan}`);
    t.notMatch(plan, /TEMP B-TREE/, 'no sort of every row');
  });
}

t.test('a page past the end, or Take=0, adds a COUNT for the total; an empty filter does not', async (t) => {
  const { db, statements } = await scratch(t, 5);
  const page = await items(db, {}, { Skip: 5 });
  t.same(page, { offset: 5, total: 5, rows: [] });
  t.equal(statements.length, 2);
  t.match(statements[1], /^select count\(\*\) as "total" from "items"$/);
  statements.length = 0;
  t.same((await items(db, {}, { Take: 0 })).total, 5);
  t.equal(statements.length, 1, 'Take=0: the count alone');
  statements.length = 0;
  t.same((await items(db, { name: 'none' }, {})).total, 0);
  t.equal(statements.length, 1, 'nothing on the first page: the total is 0');
});

t.test('NULLs come first ascending and last descending, on either engine', async (t) => {
  const { db, statements } = await scratch(t, 6);
  const ids = async (request: object) => (await items(db, {}, request)).rows.map((r) => r.id);
  // notes: 1 m0, 2 m1, 3 null, 4 m1, 5 m0, 6 null
  t.same(await ids({ OrderBy: 'Note' }), [3, 6, 1, 5, 2, 4]);
  t.same(await ids({ OrderByDesc: 'Note' }), [2, 4, 1, 5, 3, 6]);
  t.same(await ids({ OrderBy: '-Note,-Id' }), [4, 2, 5, 1, 6, 3]);
  t.match(statements.at(-1), /order by "note" desc nulls last, "id" desc/);
  await ids({ OrderBy: 'Name' });
  t.match(statements.at(-1), /order by "name" asc, "id" asc/, 'a NOT NULL column keeps the default NULLS placement (an index can serve it)');
});

t.test('text orders by code point (the C collation the database must use)', async (t) => {
  const { db } = await scratch(t, 0);
  await db.insertInto('items').values(['b', 'C', 'a', 'É', 'B', '_'].map((name, i) => ({ id: i + 1, name, note: null }))).execute();
  const page = await items(db, {}, { OrderBy: 'Name' });
  t.same(page.rows.map((r) => r.name), ['B', 'C', '_', 'a', 'b', 'É']);
});

t.test('the total counts the filter, not the page', async (t) => {
  const { db } = await scratch(t, 30);
  const page = await items(db, { name: 'n0' }, { Take: 2 });
  t.equal(page.total, 10);
  t.same(page.rows, [{ id: 1, name: 'n0', note: 'm0' }, { id: 4, name: 'n0', note: 'm1' }]);
});

t.test('a unique tiebreak makes pages over repeated values stable and complete', async (t) => {
  const { db } = await scratch(t, 20);
  const seen: number[] = [];
  for (let skip = 0; skip < 20; skip += 6) {
    const page = await items(db, {}, { Skip: skip, Take: 6, OrderByDesc: 'Name' });
    seen.push(...page.rows.map((row) => row.id));
  }
  t.same(seen, [3, 6, 9, 12, 15, 18, 2, 5, 8, 11, 14, 17, 20, 1, 4, 7, 10, 13, 16, 19]);
});

t.test('an ordering refused is refused before any SQL runs', async (t) => {
  const { db, statements } = await scratch(t, 3);
  const error = await items(db, {}, { OrderBy: 'Nope' }).catch((e) => e);
  t.ok(error instanceof Refusal);
  t.equal(toApiError(error)?.statusCode, 400);
  t.equal(statements.length, 0);
});
