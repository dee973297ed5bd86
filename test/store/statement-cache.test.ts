import SQLite from 'better-sqlite3';
import t from 'tap';
import { withStatementCache } from '../../src/store/db.js';

// SQLite only, whatever the engine under test: the SQLite engine keeps the statements Kysely
// prepares for reuse, bounded in number (src/store/engines/sqlite.ts). node-postgres has no
// such cache to test: it sends each query's text with its parameters (unnamed statements).

t.test('the same SQL text gets the same prepared statement; other text another', async (t) => {
  const sqlite = new SQLite(':memory:');
  t.teardown(() => sqlite.close());
  const database = withStatementCache(sqlite);
  const first = database.prepare('select ? as x');
  t.equal(database.prepare('select ? as x'), first, 'reused');
  t.not(database.prepare('select ? as y'), first);
  t.same(first.all([1]), [{ x: 1 }]);
  t.same(database.prepare('select ? as x').all([2]), [{ x: 2 }], 'parameters bound afresh at each run');
});

t.test('the cache keeps at most its size, the oldest statement going first', async (t) => {
  const sqlite = new SQLite(':memory:');
  t.teardown(() => sqlite.close());
  const database = withStatementCache(sqlite, 3);
  const oldest = database.prepare('select 1');
  for (const n of [2, 3, 4]) database.prepare(`select ${n}`);
  t.equal(database.cached(), 3);
  t.not(database.prepare('select 1'), oldest, 'prepared again after eviction');
  t.equal(database.cached(), 3);
});
