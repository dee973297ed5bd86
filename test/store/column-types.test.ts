import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { affinity, kindOf, readColumnFacts, type Affinity, type ColumnKind } from '../../scripts/db-column-types.js';
import { loadDemoData } from '../../src/import/demo-data.js';
import { openStore } from '../../src/store/db.js';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { webhookQueueRepository } from '../../src/store/repositories/webhook-queue.js';
import { recordEvent, type WebhookEventType } from '../../src/store/repositories/webhook-messages.js';
import { engine } from '../test-store.js';
import { memoryStore } from './store-helper.js';

// scripts/db-column-types.ts reads the column facts from a migrated SQLite database (its
// catalogue, whatever the engine under test): `sqliteFacts`. The values are read from the
// store of the engine under test, and on PostgreSQL its own catalogue must agree.

async function sqliteFacts(t: Test) {
  const sqlite = await openStore('file::memory:');
  t.teardown(() => sqlite.close());
  return readColumnFacts(sqlite.db);
}

const isIsoDateTime = (value: unknown) =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;
const isTimespan = (value: unknown) => typeof value === 'string' && /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(value);
const isBool = (value: unknown) => value === 0 || value === 1;

const holds: Record<ColumnKind, (value: unknown) => boolean> = { Bool: isBool, IsoDate: isIsoDateTime, Timespan: isTimespan };

// The names are the only thing that marks date and time columns (scripts/db-column-types.ts),
// so the demo data, which fills every table, checks the naming rule in both directions.
t.test('the column types derived for src/generated/db.ts hold for the demo data, and miss no date column', async (t) => {
  const store = await memoryStore(t);
  await loadDemoData(store);
  await fillOutbox(store);
  const wrong: string[] = [];
  for (const fact of await sqliteFacts(t)) {
    const column = sql.ref(fact.column);
    const { rows } = await sql<{ value: unknown }>`select distinct ${column} as value from ${sql.table(fact.table)} where ${column} is not null`.execute(store.db);
    const values = rows.map((row) => row.value);
    const kind = kindOf(fact);
    const path = `${fact.table}.${fact.column}`;
    if (kind) {
      if (values.length === 0 || !values.every(holds[kind])) wrong.push(`${path}: typed ${kind}, holds ${JSON.stringify(values.slice(0, 3))}`);
    } else if (fact.affinity === 'text' && values.length > 0) {
      if (values.every(isIsoDateTime)) wrong.push(`${path}: holds ISO date-times but is not named as a date column`);
      if (values.every(isTimespan)) wrong.push(`${path}: holds times of day but is not named …_time`);
    }
  }
  t.same(wrong, []);
});

/**
 * The outbox tables are filled by writes through the API, not by the demo data: an event for
 * the demo endpoint that takes `booking.created`, one failed attempt, and a claim under lease.
 */
async function fillOutbox(store: Parameters<typeof webhookQueueRepository>[0]) {
  const messageId = (await recordEvent(store, DEMO_COMPANY_A, 'booking.created' as WebhookEventType, { Id: 1 }))!;
  const queue = webhookQueueRepository(store);
  const now = new Date();
  const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const [claimed] = await queue.claim('node', later(0), later(60000), 1, [messageId]);
  await queue.record(claimed.delivery, 'node', {
    attemptedAt: now.toISOString(), url: claimed.endpoint!.url, statusCode: 500, durationMs: 12, succeeded: false,
    response: 'no', error: null, nextAttemptAt: later(1000), gone: false,
  });
  await queue.claim('node', later(2000), later(62000), 1);
}

t.test('every 0/1 flag the migrations declare is typed Bool', async (t) => {
  const flags = (await sqliteFacts(t)).filter((fact) => kindOf(fact) === 'Bool');
  t.ok(flags.some((fact) => fact.table === 'resources' && fact.column === 'send_email_reminder'), 'nullable flags too');
  t.ok(flags.every((fact) => fact.affinity === 'integer'));
  t.notOk(flags.some((fact) => fact.column === 'sort_order' || fact.column === 'status_id'), 'other integers stay numbers');
});

t.test('declared types map to the affinity SQLite stores them with', async (t) => {
  t.equal(affinity('bigint'), 'integer');
  t.equal(affinity('double precision'), 'real');
  t.equal(affinity('text'), 'text');
  t.equal(affinity('varchar(20)'), 'text');
  t.equal(affinity(''), 'blob');
  t.equal(affinity('decimal(10, 2)'), 'numeric');
  t.throws(() => kindOf({ table: 'x', column: 'y', affinity: 'text', primaryKey: false, flag: true }), /0\/1 CHECK on a text column/);
});

/** The PostgreSQL types each SQLite affinity of the migrations' portable types comes out as. */
const POSTGRES_TYPES: Record<Affinity, string[]> = {
  integer: ['integer', 'bigint'],
  text: ['text'],
  real: ['double precision'],
  numeric: ['numeric'],
  blob: ['bytea'],
};

// The PostgreSQL half of the suite adds this test; the SQLite catalogue is what the types are derived from.
if (engine === 'postgres') {
  t.test('PostgreSQL only: its columns have the types derived from SQLite, and every flag its 0/1 CHECK', async (t) => {
  const store = await memoryStore(t);
  const { rows: columns } = await sql<{ table: string; column: string; type: string }>`
    select table_name as table, column_name as column, data_type as type from information_schema.columns where table_schema = current_schema()`.execute(store.db);
  const { rows: checks } = await sql<{ table: string; definition: string }>`
    select t.relname as table, pg_get_constraintdef(c.oid) as definition from pg_constraint c join pg_class t on t.oid = c.conrelid
    where c.contype = 'c' and t.relnamespace = current_schema()::regnamespace`.execute(store.db);
  const typeOf = new Map(columns.map((c) => [`${c.table}.${c.column}`, c.type]));
  // PostgreSQL keeps `x in (0, 1)` as `x = ANY (ARRAY[0, 1])`.
  const flags = new Set(checks.flatMap((c) => [...c.definition.matchAll(/\(+(\w+) = ANY \(ARRAY\[0, 1\]\)\)/g)].map((m) => `${c.table}.${m[1]}`)));
  const wrong: string[] = [];
  for (const fact of await sqliteFacts(t)) {
    const path = `${fact.table}.${fact.column}`;
    const type = typeOf.get(path);
    if (!type || !POSTGRES_TYPES[fact.affinity].includes(type)) wrong.push(`${path}: ${fact.affinity} on SQLite, ${type ?? 'missing'} on PostgreSQL`);
    if (fact.flag !== flags.has(path)) wrong.push(`${path}: 0/1 CHECK ${fact.flag ? 'missing' : 'only'} on PostgreSQL`);
  }
  t.same(wrong, []);
  t.ok(flags.size > 20, `${flags.size} flags found`);
  });
}
