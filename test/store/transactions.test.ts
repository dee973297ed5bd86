import t from 'tap';
import { inTransaction, isRetryable, RETRY_POLICY, statementWithRetries, withRetries } from '../../src/store/statements.js';
import { engine, testStore } from '../test-store.js';

// The one home of transactions: all or nothing, and run again when the database gives up
// on a run (serialization failure, deadlock, SQLite busy), on the engine under test.

const failure = (code: string) => Object.assign(new Error(`simulated ${code}`), { code });
const COMPANY = '00000000-0000-4000-8000-0000000000c1';

t.test('serialization failures, deadlocks and SQLite busy are retryable; other failures are not', async (t) => {
  for (const code of ['40001', '40P01', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']) t.ok(isRetryable(failure(code)), code);
  for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', '42P01']) t.notOk(isRetryable(failure(code)), code);
  t.notOk(isRetryable(new Error('boom')));
  t.notOk(isRetryable(undefined));
});

t.test(`a failed run is rolled back and the whole callback runs again (${engine})`, async (t) => {
  const store = await testStore(t);
  let runs = 0;
  const answer = await inTransaction(store, async (tx) => {
    runs++;
    await tx.db.insertInto('companies').values({ id: COMPANY, name: `run ${runs}`, created: new Date().toISOString() }).execute();
    if (runs < 3) throw failure(runs === 1 ? '40001' : '40P01');
    return 'done';
  });
  t.equal(answer, 'done');
  t.equal(runs, 3);
  const rows = await store.db.selectFrom('companies').select('name').where('id', '=', COMPANY).execute();
  t.same(rows, [{ name: 'run 3' }], 'only the last run is kept');
});

t.test('retries are bounded, wait longer each time, and other failures are not retried', async (t) => {
  let runs = 0;
  const policy = { runs: 4, baseMs: 20, capMs: 40 };
  const started = Date.now();
  const err = await withRetries(async () => {
    runs++;
    throw failure('40001');
  }, policy).catch((e: unknown) => e);
  t.match(err, { code: '40001' }, 'the last failure is passed on');
  t.equal(runs, policy.runs);
  t.ok(Date.now() - started < 20 + 40 + 40 + 500, 'each wait is below its bound');
  t.ok(RETRY_POLICY.runs >= 10, 'the store retries enough for a hot row');
  const store = await testStore(t);
  runs = 0;
  await inTransaction(store, async () => {
    runs++;
    throw failure('23505');
  }).catch(() => {});
  t.equal(runs, 1, 'a unique violation is an answer, not a collision');
});

t.test('SQLite busy is retried too; a transaction opened inside another is refused, not joined', async (t) => {
  const store = await testStore(t);
  const count = ({ db }: Pick<typeof store, 'db'>) => db.selectFrom('companies').select('id').execute().then((r) => r.length);
  let runs = 0;
  const counted = await inTransaction(store, async (tx) => {
    if (++runs === 1) throw failure('SQLITE_BUSY');
    return count(tx);
  });
  t.same([counted, runs], [0, 2]);
  let inner = 0;
  await t.rejects(
    inTransaction(store, (tx) =>
      inTransaction(tx, async () => {
        inner++;
      }),
    ),
    /opened inside another/,
  );
  t.equal(inner, 0, 'the inner work never ran: its owner hands the transaction down instead');
});

t.test('a lone statement is retried on the store; inside a transaction the outer run retries it', async (t) => {
  const store = await testStore(t);
  let runs = 0;
  const flaky = () => (++runs === 1 ? Promise.reject(failure('40001')) : Promise.resolve('done'));
  t.equal(await statementWithRetries(store.db, flaky), 'done');
  t.equal(runs, 2, 'on the store, the statement runs again');
  // A failed statement has aborted the transaction around it: running it again there cannot
  // work, so the failure goes to the outermost transaction, which runs everything again.
  runs = 0;
  let outer = 0;
  const answer = await inTransaction(store, async (tx) => {
    outer++;
    return statementWithRetries(tx.db, flaky);
  });
  t.same([answer, runs, outer], ['done', 2, 2], 'inside a transaction, the whole transaction runs again');
});
