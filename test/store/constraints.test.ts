import t from 'tap';
import type { Store } from '../../src/store/db.js';
import { rebateCodeSignKey } from '../../src/store/sign-key.js';
import { COMPANY_A as A, COMPANY_B as B } from '../fixtures.js';
import { engine } from '../test-store.js';
import { memoryStore } from './store-helper.js';

// The schema's constraints, enforced by the engine under test (../test-store.ts). The
// engines name a violation differently: SQLite by an SQLITE_CONSTRAINT_* code, PostgreSQL
// by its SQLSTATE.

const violation = {
  sqlite: { foreignKey: 'SQLITE_CONSTRAINT_FOREIGNKEY', unique: 'SQLITE_CONSTRAINT_UNIQUE', check: 'SQLITE_CONSTRAINT_CHECK' },
  postgres: { foreignKey: '23503', unique: '23505', check: '23514' },
}[engine];

const now = '2026-11-21T14:00:00.000Z';

async function twoCompanies(store: Store) {
  await store.db.insertInto('companies').values([
    { id: A, name: 'A', site_path: null, payment_provider_id: null, mcp_token_limit: null, created: now },
    { id: B, name: 'B', site_path: null, payment_provider_id: null, mcp_token_limit: null, created: now },
  ]).execute();
}

function rebateCode(company: string, sign: string) {
  return {
    company_id: company, sign, sign_key: rebateCodeSignKey(sign), type_id: 1, value: 10,
    valid_from: now, valid_to: now, created: now, updated: now,
  };
}

t.test('foreign keys are enforced', async (t) => {
  const store = await memoryStore(t);
  await t.rejects(
    store.db.insertInto('services').values({ company_id: A, name: 'orphan', description: null, image_url: null }).execute(),
    { code: violation.foreignKey },
  );
});

t.test('new rows get generated ids', async (t) => {
  const store = await memoryStore(t);
  await twoCompanies(store);
  const row = { company_id: A, name: 'x', description: null, image_url: null };
  const first = await store.db.insertInto('services').values(row).returning('id').executeTakeFirstOrThrow();
  const second = await store.db.insertInto('services').values(row).returning('id').executeTakeFirstOrThrow();
  t.ok(first.id > 0 && second.id > first.id);
});

t.test('deleting a parent deletes its link rows (ON DELETE CASCADE)', async (t) => {
  const store = await memoryStore(t);
  await twoCompanies(store);
  const { db } = store;
  const service = await db.insertInto('services').values({ company_id: A, name: 's', description: null, image_url: null }).returning('id').executeTakeFirstOrThrow();
  const field = await db.insertInto('custom_fields').values({
    company_id: A, group_id: null, field_id: 1, name: 'f', width: null, column_name: null, description: null,
    default_value: null, mandatory_error_message: null, max_length: null, reg_ex: null, reg_ex_id: null,
    reg_ex_error_message: null, table_name: null,
  }).returning('id').executeTakeFirstOrThrow();
  await db.insertInto('custom_field_values').values({ custom_field_id: field.id, value: 'v' }).execute();
  await db.insertInto('custom_field_services').values({ custom_field_id: field.id, service_id: service.id }).execute();

  await db.deleteFrom('custom_fields').where('id', '=', field.id).execute();
  t.equal((await db.selectFrom('custom_field_values').selectAll().execute()).length, 0);
  t.equal((await db.selectFrom('custom_field_services').selectAll().execute()).length, 0);
  t.equal((await db.selectFrom('services').selectAll().execute()).length, 1, 'the service stays');
});

t.test('a rebate code sign is unique per company, regardless of case', async (t) => {
  const store = await memoryStore(t);
  await twoCompanies(store);
  const { db } = store;
  await db.insertInto('rebate_codes').values(rebateCode(A, 'Summer10')).execute();
  await t.rejects(db.insertInto('rebate_codes').values(rebateCode(A, 'SUMMER10')).execute(), { code: violation.unique });
  await t.rejects(db.insertInto('rebate_codes').values(rebateCode(A, ' summer10 ')).execute(), { code: violation.unique });
  await db.insertInto('rebate_codes').values(rebateCode(B, 'summer10')).execute(); // another company may use it
  t.pass('same sign accepted in another company');
});

t.test('CHECK constraints refuse impossible values', async (t) => {
  const store = await memoryStore(t);
  await twoCompanies(store);
  const { db } = store;
  const code = await db.insertInto('rebate_codes').values(rebateCode(A, 'X')).returning('id').executeTakeFirstOrThrow();
  const check = { code: violation.check };
  await t.rejects(db.insertInto('tags').values({ company_id: A, name: 't', scope: null, color: null, active: 2 as 1, created_date: now }).execute(), check, 'boolean 0/1');
  await t.rejects(db.insertInto('rebate_code_days').values({ rebate_code_id: code.id, day_of_week: 8 }).execute(), check, 'day 1..7');
  await t.rejects(db.insertInto('rebate_code_days').values({ rebate_code_id: code.id, day_of_week: 0 }).execute(), check, 'day 1..7');
  await t.rejects(db.updateTable('rebate_codes').set({ remaining_amount: -1 }).where('id', '=', code.id).execute(), check, 'remaining amount');
  await t.rejects(db.updateTable('rebate_codes').set({ remaining_usage: -1 }).where('id', '=', code.id).execute(), check, 'remaining usage');
  await t.rejects(db.insertInto('mcp_usage').values({ company_id: A, tokens_used: -5, at: now }).execute(), check, 'tokens');
});
