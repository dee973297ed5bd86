import t from 'tap';
import { loadDemoData } from '../../src/import/demo-data.js';
import { importData } from '../../src/import/import.js';
import { isEmpty } from '../../src/store/db.js';
import {
  DEMO_COMPANY_A,
  DEMO_COMPANY_B,
  DEMO_IDS,
  DEMO_REBATE_CODES,
  demoData,
} from '../../src/store/demo-data.js';
import { OUTBOX_TABLES, TABLE_NAMES } from '../../src/store/schema.js';
import { rebateCodeSignKey } from '../../src/store/sign-key.js';
import { memoryStore, rowCounts } from './store-helper.js';

t.test('the demo data set imports cleanly into an empty store', async (t) => {
  const store = await memoryStore(t);
  t.ok(await isEmpty(store));
  const summary = await loadDemoData(store);
  t.equal(summary.Companies, 2);
  t.ok(summary.Printouts >= 30, 'enough printouts to page');
  t.notOk(await isEmpty(store));
  const counts = await rowCounts(store);
  for (const table of TABLE_NAMES) {
    if (OUTBOX_TABLES.includes(table)) t.equal(counts[table], 0, `${table}: written by writes through the API only`);
    else t.ok(counts[table] > 0, `${table} has demo rows`);
  }
});

t.test('the exported demoData constant is a valid import file too', async (t) => {
  const store = await memoryStore(t);
  const summary = await importData(store, demoData);
  t.same(summary, await loadDemoData(await memoryStore(t)));
});

t.test('resources show blocking, non-blocking and no bookings', async (t) => {
  const store = await memoryStore(t);
  await loadDemoData(store);
  const statuses = async (resourceId: number) =>
    (await store.db
      .selectFrom('booking_resources')
      .innerJoin('bookings', 'bookings.id', 'booking_resources.booking_id')
      .select('bookings.status_id')
      .where('booking_resources.resource_id', '=', resourceId)
      .execute()).map((row) => row.status_id);
  const nonBlocking = [2, 4];
  t.ok((await statuses(DEMO_IDS.resourceWithBlockingBookings)).some((s) => !nonBlocking.includes(s)));
  const onlyCanceled = await statuses(DEMO_IDS.resourceWithOnlyCanceledBookings);
  t.ok(onlyCanceled.length > 0 && onlyCanceled.every((s) => nonBlocking.includes(s)));
  t.same(await statuses(DEMO_IDS.freeResource), []);
  const b = await store.db.selectFrom('resources').select('company_id').where('id', '=', DEMO_IDS.resourceOfCompanyB).executeTakeFirstOrThrow();
  t.equal(b.company_id, DEMO_COMPANY_B);
});

t.test('every documented rebate code sign exists, in the documented company', async (t) => {
  const store = await memoryStore(t);
  await loadDemoData(store);
  for (const sign of Object.keys(DEMO_REBATE_CODES)) {
    const company = DEMO_REBATE_CODES[sign as keyof typeof DEMO_REBATE_CODES].startsWith('company B') ? DEMO_COMPANY_B : DEMO_COMPANY_A;
    const row = await store.db.selectFrom('rebate_codes').select('sign').where('company_id', '=', company).where('sign_key', '=', rebateCodeSignKey(sign)).executeTakeFirst();
    t.equal(row?.sign, sign, sign);
  }
  const gift = await store.db.selectFrom('rebate_codes').selectAll().where('sign_key', '=', 'GIFT500').where('company_id', '=', DEMO_COMPANY_A).executeTakeFirstOrThrow();
  t.equal(gift.remaining_amount, 350);
});

t.test('MCP usage lies inside and outside the 30-day window, relative to now', async (t) => {
  const store = await memoryStore(t);
  const now = new Date();
  await loadDemoData(store, now);
  const since = new Date(now.getTime() - 30 * 24 * 3600 * 1000).toISOString();
  const used = async (company: string, inWindow: boolean) => {
    const row = await store.db
      .selectFrom('mcp_usage')
      .select((eb) => eb.fn.sum<number>('tokens_used').as('total'))
      .where('company_id', '=', company)
      .where('at', inWindow ? '>=' : '<', since)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  };
  t.equal(await used(DEMO_COMPANY_A, true), 95000);
  t.ok((await used(DEMO_COMPANY_A, false)) > 0);
  t.equal(await used(DEMO_COMPANY_B, true), 55000, 'B is over its own limit of 50 000');
  const b = await store.db.selectFrom('companies').select('mcp_token_limit').where('id', '=', DEMO_COMPANY_B).executeTakeFirstOrThrow();
  t.equal(b.mcp_token_limit, 50000);
});
