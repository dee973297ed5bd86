import { sql, type Kysely } from 'kysely';
import t from 'tap';
import type { Store } from '../../src/store/db.js';
import type { Database } from '../../src/store/schema.js';
import { countStatements } from '../../src/store/statements.js';
import { COMPANY_A } from '../fixtures.js';
import { resourceData } from '../fixtures/resources.js';
import { buildTestApp, type TestApp } from '../helper.js';
import { engine } from '../test-store.js';

// DeleteResource and CreateResourceType read rows and then write on what they read. Run side
// by side (PostgreSQL runs transactions concurrently; SQLite one write transaction at a
// time), they must still answer 200 or a clean 4xx, never a 5xx, and leave a consistent store.
// The interleavings that matter most are forced below: another transaction holds the rows
// while the operation starts, and commits once the operation waits for them.

const now = '2026-01-01T00:00:00.000Z';

async function newResource(store: Store, name: string): Promise<number> {
  const row = await store.db
    .insertInto('resources')
    .values({ company_id: COMPANY_A, name, created: now, updated: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Resolves once some other backend waits for a lock that `conn`'s transaction holds (PostgreSQL). */
async function someoneWaitsFor(conn: Kysely<Database>): Promise<void> {
  for (let waited = 0; waited < 10000; waited += 20) {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from pg_locks where not granted and pg_backend_pid() = any(pg_blocking_pids(pid))`.execute(conn);
    if (Number(rows[0].n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('nothing waited for the held rows');
}

/**
 * `write` in a transaction of its own, and `operation` run against it. On PostgreSQL the
 * transaction stays open until `operation` waits for the rows it holds, and commits then;
 * on SQLite, which runs one write transaction at a time, it commits before `operation` starts.
 */
async function meanwhile<T>(store: Store, write: (db: Kysely<Database>) => Promise<void>, operation: () => Promise<T>): Promise<T> {
  if (engine === 'sqlite') {
    await store.db.transaction().execute(write);
    return operation();
  }
  return store.db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    let pending: Promise<T> | undefined;
    try {
      await write(conn);
      pending = operation();
      await someoneWaitsFor(conn);
      await sql`commit`.execute(conn);
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
    return pending;
  });
}

const statusesOf = (responses: { statusCode: number }[]) => responses.map((r) => r.statusCode);

t.test('a booking committed while DeleteResource waits for the row: 409, nothing deleted', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  // Resource 101 has only canceled/unbooked bookings: deletable until booking 1005 comes.
  const book = async (db: Kysely<Database>) => {
    await db.insertInto('bookings').values({ id: 1005, company_id: COMPANY_A, service_id: 1, from: now, to: now, status_id: 1 }).execute();
    await db.insertInto('booking_resources').values({ booking_id: 1005, resource_id: 101 }).execute();
  };
  const { result, statements } = await meanwhile(api.store, book, () => countStatements(() => api.call('DELETE', '/resource/101')));
  t.equal(result.statusCode, 409, result.body);
  t.equal(result.json().ResponseStatus.ErrorCode, 'Conflict');
  const links = await api.store.db.selectFrom('booking_resources').select('booking_id').where('resource_id', '=', 101).orderBy('booking_id').execute();
  t.same(links.map((l) => l.booking_id), [1003, 1004, 1005], 'the resource and its bookings are kept');
  // On PostgreSQL the check that waited for the lock read an older snapshot; the next read, under
  // the lock, sees the booking (begin, check, read, rollback).
  if (engine === 'postgres') t.equal(statements, 4, 'the decision was read again under the lock');
  else t.equal(statements, 3, 'begin, read, rollback');
});

t.test('Force: a booking committed while DeleteResource waits turns the deletion into a deactivation', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const book = async (db: Kysely<Database>) => {
    await db.insertInto('bookings').values({ id: 1005, company_id: COMPANY_A, service_id: 1, from: now, to: now, status_id: 7 }).execute();
    await db.insertInto('booking_resources').values({ booking_id: 1005, resource_id: 101 }).execute();
  };
  const res = await meanwhile(api.store, book, () => api.call('DELETE', '/resource/101?Force=true'));
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().Active, false);
  t.ok(res.json().Bookings.some((b: { Id: number }) => b.Id === 1005), 'answered with the booking that blocked it');
  const row = await api.store.db.selectFrom('resources').select('active').where('id', '=', 101).executeTakeFirstOrThrow();
  t.equal(row.active, 0, 'kept, deactivated');
});

t.test('a resource deleted while CreateResourceType waits to link it: 400 UnknownResource, nothing written', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const remove = async (db: Kysely<Database>) => {
    await db.deleteFrom('resources').where('id', '=', 102).execute();
  };
  const body = { Name: 'Late', Resources: [{ Id: 100 }, { Id: 102 }] };
  const res = await meanwhile(api.store, remove, () => api.call('POST', '/resourcetypes', { body }));
  t.equal(res.statusCode, 400, res.body);
  t.same(res.json().ResponseStatus.Errors.map((e: { ErrorCode: string; FieldName: string }) => [e.ErrorCode, e.FieldName]), [['UnknownResource', 'Resources[1].Id']]);
  t.same(await api.store.db.selectFrom('resource_types').select('id').where('name', '=', 'Late').execute(), [], 'the type was rolled back');
});

t.test('a resource linked while DeleteResource waits for it: deleted, and the new link with it', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const link = async (db: Kysely<Database>) => {
    const type = await db.insertInto('resource_types').values({ company_id: COMPANY_A, name: 'Meanwhile', created: now, updated: now }).returning('id').executeTakeFirstOrThrow();
    await db.insertInto('resource_type_resources').values({ resource_type_id: type.id, resource_id: 102 }).execute();
  };
  const res = await meanwhile(api.store, link, () => api.call('DELETE', '/resource/102'));
  t.equal(res.statusCode, 200, res.body);
  t.same(await api.store.db.selectFrom('resource_type_resources').select('resource_type_id').where('resource_id', '=', 102).execute(), []);
  t.equal((await api.store.db.selectFrom('resource_types').select('id').where('name', '=', 'Meanwhile').execute()).length, 1, 'the type stays');
});

/** 20 CreateResourceType linking `x` (and resource 100), with DeleteResource of `x` among them. */
async function race(api: TestApp, x: number, round: number) {
  const creates = Array.from({ length: 20 }, (_, n) => () =>
    api.call('POST', '/resourcetypes', { body: { Name: `Race ${round}.${n}`, Resources: [{ Id: x, Priority: 1 }, { Id: 100 }] } }));
  const calls = [...creates.slice(0, 10), () => api.call('DELETE', `/resource/${x}`), ...creates.slice(10)];
  const answers = await Promise.all(calls.map((call) => call()));
  return { deleted: answers[10], created: [...answers.slice(0, 10), ...answers.slice(11)] };
}

t.test('20 concurrent CreateResourceType linking a resource while DeleteResource deletes it', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const { db } = api.store;
  for (let round = 1; round <= 5; round++) {
    const x = await newResource(api.store, `Racer ${round}`);
    const { deleted, created } = await race(api, x, round);
    t.equal(deleted.statusCode, 200, `round ${round}: DeleteResource: ${deleted.body.slice(0, 200)}`);
    t.same(statusesOf(created).filter((s) => s !== 200 && s !== 400), [], `round ${round}: every CreateResourceType answered 200 or 400`);
    for (const refused of created.filter((r) => r.statusCode === 400)) {
      t.same(refused.json().ResponseStatus.Errors.map((e: { ErrorCode: string; FieldName: string }) => [e.ErrorCode, e.FieldName]), [['UnknownResource', 'Resources[0].Id']]);
    }
    const ok = created.filter((r) => r.statusCode === 200).map((r) => r.json() as { Id: number; Resources: { Id: number }[] });
    t.comment(`round ${round}: ${ok.length} types created, ${created.length - ok.length} refused`);
    t.ok(ok.every((type) => type.Resources.map((r) => r.Id).join() === [x, 100].sort((a, b) => a - b).join()), `round ${round}: each created type was answered with both resources`);
    t.same(await db.selectFrom('resources').select('id').where('id', '=', x).execute(), [], `round ${round}: the resource is gone`);
    t.same(await db.selectFrom('resource_type_resources').select('resource_type_id').where('resource_id', '=', x).execute(), [], 'and no link to it is left');
    const stored = await db.selectFrom('resource_types').select('id').where('name', 'like', `Race ${round}.%`).orderBy('id').execute();
    t.same(stored.map((r) => r.id), ok.map((type) => type.Id).sort((a, b) => a - b), `round ${round}: exactly the ${ok.length} answered types are stored`);
    const members = await db.selectFrom('resource_type_resources').select('resource_type_id').where('resource_type_id', 'in', [0, ...stored.map((r) => r.id)]).execute();
    t.equal(members.length, stored.length, 'each keeps its link to resource 100, nothing half-written');
  }
});

t.test('concurrent deletes of one resource: one 200, the others 404', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const answers = await Promise.all(Array.from({ length: 6 }, () => api.call('DELETE', '/resource/101')));
  t.same(statusesOf(answers).sort(), [200, 404, 404, 404, 404, 404]);
  t.same(answers.find((a) => a.statusCode === 200)!.json().Bookings.map((b: { Id: number }) => b.Id), [1003, 1004]);

  const forced = await Promise.all(Array.from({ length: 6 }, () => api.call('DELETE', '/resource/100?Force=true')));
  t.same(statusesOf(forced), [200, 200, 200, 200, 200, 200], 'deactivating a blocked resource again is answered the same');
  t.ok(forced.every((a) => a.json().Active === false && a.json().Bookings.length === 3));
});
