import { sql } from 'kysely';
import t from 'tap';
import { affinity, kindOf, readColumnFacts, type ColumnKind } from '../../scripts/db-column-types.js';
import { loadDemoData } from '../../src/store/demo-data.js';
import { memoryStore } from './store-helper.js';

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
  const wrong: string[] = [];
  for (const fact of await readColumnFacts(store.db)) {
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

t.test('every 0/1 flag the migrations declare is typed Bool', async (t) => {
  const store = await memoryStore(t);
  const flags = (await readColumnFacts(store.db)).filter((fact) => kindOf(fact) === 'Bool');
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
