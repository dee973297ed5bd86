import { sql } from 'kysely';
import t from 'tap';
import { openStore } from '../../src/store/db.js';
import { prepared, preparedVariants } from '../../src/store/prepared.js';
import { countStatements } from '../../src/store/statements.js';
import { engine, freshDatabase } from '../test-store.js';

// Prepared queries (src/store/prepared.ts) on the engine under test: built once, run with
// each call's values, and still right after a migration changes a table they read.

async function store(t: { teardown(fn: () => unknown): void }) {
  const database = await freshDatabase();
  const opened = await openStore(database.url);
  t.teardown(async () => {
    await opened.close();
    await database.drop();
  });
  await opened.db.insertInto('companies').values([
    { id: 'c1', name: 'One', site_path: 'one', created: '2026-01-01T00:00:00.000Z' },
    { id: 'c2', name: 'Two', site_path: 'two', created: '2026-01-01T00:00:00.000Z' },
  ]).execute();
  return opened;
}

const byId = prepared((db, p: { id: string; names: string }) =>
  db.selectFrom('companies').selectAll().where('id', '=', p.id).where('name', '<>', p.names).where('site_path', '<>', 'never'),
);

t.test('each run binds its own values; constants written into the query stay', async (t) => {
  const { db } = await store(t);
  t.match(await byId.takeFirst(db, { id: 'c1', names: 'x' }), { id: 'c1', name: 'One' });
  t.match(await byId.takeFirst(db, { id: 'c2', names: 'x' }), { id: 'c2', name: 'Two' });
  t.equal(await byId.takeFirst(db, { id: 'c2', names: 'Two' }), undefined, 'every placeholder is bound');
  const { compiles } = await countStatements(() => byId.execute(db, { id: 'c1', names: 'x' }));
  t.equal(compiles, 0, 'compiled once');
});

t.test('a transaction runs the same prepared query', async (t) => {
  const { db } = await store(t);
  await byId.takeFirst(db, { id: 'c1', names: 'x' });
  const { result, compiles } = await countStatements(() =>
    db.transaction().execute(async (trx) => {
      await trx.updateTable('companies').set({ name: 'Uno' }).where('id', '=', 'c1').execute();
      return byId.takeFirst(trx, { id: 'c1', names: 'x' });
    }),
  );
  t.match(result, { name: 'Uno' }, 'it sees the transaction\'s own write');
  t.equal(compiles, 1, 'only the update was compiled');
});

t.test(`a prepared query still answers after a migration adds a column to its table (${engine})`, async (t) => {
  const { db } = await store(t);
  const row = await byId.takeFirst(db, { id: 'c1', names: 'x' });
  t.notOk(row && 'extra' in row);
  await sql`alter table companies add column extra integer`.execute(db);
  // Every pooled connection may hold the old plan: run it on as many as the pool has.
  const rows = await Promise.all(Array.from({ length: 12 }, () => byId.takeFirst(db, { id: 'c1', names: 'x' })));
  for (const after of rows) t.match(after, { id: 'c1', extra: null }, 'the new column is answered');
});

t.test('variants: one prepared query per key, at most `max` kept', async (t) => {
  let built = 0;
  const variants = preparedVariants(
    (desc: boolean) => String(desc),
    (desc) => {
      built++;
      return prepared((db, p: { id: string }) => db.selectFrom('companies').select('id').where('id', '<>', p.id).orderBy('id', desc ? 'desc' : 'asc'));
    },
    1,
  );
  const { db } = await store(t);
  t.same((await variants(true).execute(db, { id: 'x' })).map((r) => r.id), ['c2', 'c1']);
  t.same((await variants(true).execute(db, { id: 'x' })).map((r) => r.id), ['c2', 'c1']);
  t.equal(built, 1, 'found again by its key');
  t.same((await variants(false).execute(db, { id: 'c2' })).map((r) => r.id), ['c1']);
  variants(true);
  t.equal(built, 3, 'the oldest went when the second came');
});
