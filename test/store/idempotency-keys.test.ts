import { sql } from 'kysely';
import t from 'tap';
import { sweepExpiredKeys } from '../../src/executor/idempotency.js';
import { openStore } from '../../src/store/db.js';
import { buildDemoData, DEMO_COMPANY_A as A } from '../../src/store/demo-data.js';
import { claimKey } from '../../src/store/repositories/idempotency-keys.js';
import { buildTestApp } from '../helper.js';
import { engine, testStore } from '../test-store.js';

// The keys of retried writes in the store (docs/decisions.md, "Retried writes"): expired
// keys go in bounded batches; on PostgreSQL a claim waits at most 2 s for a key in use, and
// the write's own row locks wait as long as ever after it.

const claim = (key: string, ttlMs: number) => ({ companyId: A, key, operationId: 'DeleteTag', fingerprint: 'f', ttlMs });

t.test(`expired keys are deleted in bounded batches; live ones and one taken over stay (${engine})`, async (t) => {
  const store = await testStore(t);
  for (let i = 0; i < 7; i++) t.ok(await claimKey(store.db, claim(`old-${i}`, -60_000)), `old-${i} claimed, already past its time`);
  t.ok(await claimKey(store.db, claim('live', 60_000)));
  t.notOk(await claimKey(store.db, claim('live', 60_000)), 'a live key is not claimed again');
  t.ok(await claimKey(store.db, claim('old-0', 60_000)), 'an expired key is taken over by a new use');
  const keys = async () => (await store.db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((row) => row.key);
  t.equal(await sweepExpiredKeys(store, { everyMs: 0, batch: 2, batches: 2 }), 4, 'a sweep deletes at most its batches');
  t.equal((await keys()).length, 4);
  t.equal(await sweepExpiredKeys(store, { everyMs: 0, batch: 2, batches: 5 }), 2, 'the next goes on, and stops at a short batch');
  t.same(await keys(), ['live', 'old-0'], 'the live key and the one taken over remain');
  t.equal(await sweepExpiredKeys(store), 0);
});

// PostgreSQL alone: on SQLite one write runs at a time, and a claim waits as long as any write does.
if (engine === 'postgres') {
  t.test('PostgreSQL: a key in use waits 2 s, then 409 IdempotencyKeyInUse; the write then runs as its key frees', async (t) => {
    const api = await buildTestApp(t, { data: buildDemoData(), company: A });
    const other = await openStore(api.config.DATABASE_URL, { migrate: false });
    t.teardown(() => other.close());
    const body = { RebateCodeId: 101, Amount: 1, Usage: 0, ChangeType: 'Decrease' };
    const holding = other.db.transaction().execute(async (trx) => {
      t.ok(await claimKey(trx, { ...claim('held', 60_000), operationId: 'CreateRebateCodeTransaction' }), 'another node claims the key');
      const started = Date.now();
      const busy = await api.call('POST', '/rebatecodes/transactions', { body, headers: { 'idempotency-key': 'held' } });
      const waited = Date.now() - started;
      t.equal(busy.statusCode, 409);
      t.equal(busy.json().ResponseStatus.ErrorCode, 'IdempotencyKeyInUse');
      t.equal(busy.headers['retry-after'], '1');
      t.ok(waited >= 1900 && waited < 4000, `waited ${waited} ms for the key`);
      throw new Error('the other node fails before its commit');
    });
    await t.rejects(holding, /fails before its commit/);
    const runs = await api.call('POST', '/rebatecodes/transactions', { body, headers: { 'idempotency-key': 'held' } });
    t.equal(runs.statusCode, 200, 'the key was never stored: the retry runs');
    t.notOk(runs.headers['idempotent-replayed']);
  });

  t.test('PostgreSQL: after the claim, the write waits for a row lock longer than the claim would', async (t) => {
    const api = await buildTestApp(t, { data: buildDemoData(), company: A });
    const other = await openStore(api.config.DATABASE_URL, { migrate: false });
    t.teardown(() => other.close());
    let written: Promise<{ statusCode: number }> | undefined;
    await other.db.transaction().execute(async (trx) => {
      await sql`select id from rebate_codes where id = 101 for update`.execute(trx);
      written = api.call('POST', '/rebatecodes/transactions', {
        body: { RebateCodeId: 101, Amount: 1, Usage: 0, ChangeType: 'Decrease' },
        headers: { 'idempotency-key': 'row-lock' },
      });
      await new Promise((resolve) => setTimeout(resolve, 2600));
    });
    t.equal((await written!).statusCode, 200, 'the keyed write waited 2.6 s for the code and ran');
  });
}
