import t from 'tap';
import { coerceToSchema, type JsonSchema } from '../../src/contract/coercion.js';
import { contract } from '../contract-operations.js';
import { COMPANY_A } from '../fixtures.js';
import { rebateData } from '../fixtures/rebate-codes.js';
import { resourceData } from '../fixtures/resources.js';
import { buildTestApp, expectRefusal, expectRefused } from '../helper.js';

// Values read as ServiceStack reads them (docs/decisions.md, "Wire format"): booleans in any case,
// enums by name in any case or by number, a date alone as midnight UTC; integers stay
// plain decimal (strict-input.test.ts).

const TRANSACTIONS = '/rebatecodes/transactions';
const CARD = 1008; // CARD-20: a value card of company A worth 20
const remaining = async (api: Awaited<ReturnType<typeof buildTestApp>>, id: number) =>
  (await api.store.db.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', id).executeTakeFirstOrThrow()).remaining_amount;

t.test('Force=True in any case forces DeleteResource; False does not', async (t) => {
  for (const force of ['True', 'TRUE', 'true']) {
    const api = await buildTestApp(t, { data: resourceData });
    const res = await api.call('DELETE', `/resource/100?force=${force}`);
    t.same([res.statusCode, res.json().Active], [200, false], `force=${force}: deactivated`);
  }
  const api = await buildTestApp(t, { data: resourceData });
  for (const url of ['/resource/100?FORCE=False', '/resource/100?force=false']) {
    await expectRefused(t, api, 'DELETE', url, {}, { status: 409, code: 'Conflict', name: url });
  }
  await expectRefused(t, api, 'DELETE', '/resource/100?force=yes', {}, { status: 400, field: 'Force', name: 'force=yes' });
});

t.test('a date alone is midnight UTC wherever a date-time is expected', async (t) => {
  // Valid at exactly 2026-12-01T00:00:00Z and at no other moment.
  const instant = '2026-12-01T00:00:00.000Z';
  const data = {
    ...rebateData,
    RebateCodes: [...rebateData.RebateCodes, { CompanyId: COMPANY_A, Id: 1100, RebateCodeSign: 'MIDNIGHT', RebateCodeTypeId: 1, RebateCodeValue: 10, ValidFrom: instant, ValidTo: instant }],
  };
  const api = await buildTestApp(t, { data });
  const lookup = (date: string) =>
    api.call('GET', `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&RebateCodeSign=MIDNIGHT&ServiceId=100&IncludeConnectedServices=true&Date=${date}`);
  const ok = await lookup('2026-12-01');
  t.same([ok.statusCode, ok.json().Id], [200, 1100], 'Date=2026-12-01 is valid: midnight UTC');
  expectRefusal(t, await lookup('2026-11-30'), { status: 400, code: 'RebateCodeNotYetValid' });
  expectRefusal(t, await lookup('2026-12-01T00:00:01Z'), { status: 400, code: 'RebateCodeExpired' });
  for (const bad of ['2026-13-01', '2026-12-1', '20261201', ' 2026-12-01']) {
    expectRefusal(t, await lookup(encodeURIComponent(bad)), { status: 400, field: 'Date', name: `Date=${bad}` });
  }
});

t.test('ChangeType takes its name in any case or its number: Increase = 0, Decrease = 1', async (t) => {
  const api = await buildTestApp(t, { data: rebateData });
  let expected = await remaining(api, CARD);
  for (const [changeType, sign] of [[1, -1], ['decrease', -1], ['DECREASE', -1], ['1', -1], [0, 1], ['increase', 1], ['0', 1]] as const) {
    const res = await api.call('POST', TRANSACTIONS, { body: { RebateCodeId: CARD, Amount: 2, Usage: 0, ChangeType: changeType } });
    t.same([res.statusCode, res.json().RebateCodeTransactionItem?.Amount], [200, 2 * sign], `ChangeType ${JSON.stringify(changeType)}`);
    expected = (expected ?? 0) + 2 * sign;
    t.equal(await remaining(api, CARD), expected);
  }
  const csv = await api.call('POST', TRANSACTIONS, { csv: `RebateCodeId,Amount,Usage,ChangeType\r\n${CARD},1,0,1\r\n` });
  t.same([csv.statusCode, csv.json().RebateCodeTransactionItem.Amount], [200, -1], 'in a CSV body too');
  for (const changeType of [2, -1, '2', '1.0', ' 1', 'Decreases', '', true, 1.5]) {
    const body = { RebateCodeId: CARD, Amount: 2, Usage: 0, ChangeType: changeType };
    await expectRefused(t, api, 'POST', TRANSACTIONS, { body }, { status: 400, field: 'ChangeType', name: `ChangeType ${JSON.stringify(changeType)}` });
  }
});

t.test('every enum a request can carry numbers its members from 0, as its description says', async (t) => {
  // The binding numbers a C# enum's members by position from 0 (coercion.ts enumMember); this
  // holds the contract to it: a request-side enum whose description gives `Name = N` must
  // list its members in that order from 0.
  const { document } = contract();
  const schemas = document.components.schemas as Record<string, JsonSchema>;
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const ref = (node as { $ref?: string }).$ref;
    if (typeof ref === 'string') {
      const target = ref.replace(/^#\//, '').split('/').reduce<any>((value, key) => value?.[key], document);
      const name = ref.split('/').pop()!;
      if (ref.startsWith('#/components/schemas/') && !found.has(name)) {
        found.add(name);
        visit(target);
      } else if (!ref.startsWith('#/components/schemas/')) visit(target);
      return;
    }
    Object.values(node).forEach(visit);
  };
  for (const item of Object.values<Record<string, { parameters?: unknown; requestBody?: unknown }>>(document.paths)) {
    for (const op of Object.values(item)) visit([op.parameters, op.requestBody]);
  }
  const enums = [...found].filter((name) => schemas[name].type === 'string' && Array.isArray(schemas[name].enum));
  t.ok(enums.includes('ChangeType'), 'ChangeType is one of them');
  t.notOk(enums.includes('BookingStatusEnum'), 'BookingStatusEnum (from 1) is only answered');
  for (const name of enums) {
    const members = schemas[name].enum as string[];
    const given = new Map([...String(schemas[name].description ?? '').matchAll(/(\w+) = (\d+)/g)].map(([, member, n]) => [member, Number(n)]));
    for (const [i, member] of members.entries()) {
      if (given.has(member)) t.equal(given.get(member), i, `${name}.${member} = ${i}`);
    }
  }
});

t.test('an integer enum takes the names of its x-enum-varnames in any case', async (t) => {
  const category: JsonSchema = { type: ['integer', 'null'], enum: [1, 2, 3, 4, null], 'x-enum-varnames': ['Object', 'Person', 'Room', 'Relay'] };
  const request: JsonSchema = { type: 'object', properties: { ResourceCategory: category, Categories: { type: 'array', items: category } } };
  t.strictSame(coerceToSchema({ resourcecategory: 'room', Categories: ['Relay', 'PERSON', '1', 2] }, request), { ResourceCategory: 3, Categories: [4, 2, 1, 2] });
  t.strictSame(coerceToSchema({ ResourceCategory: 'Chair' }, request), { ResourceCategory: 'Chair' }, 'an unknown name is left for validation');
  t.strictSame(coerceToSchema({ ResourceCategory: '0x3' }, request), { ResourceCategory: '0x3' }, 'numbers stay plain decimal');
  const noNames: JsonSchema = { type: 'integer', enum: [1, 2] };
  t.strictSame(coerceToSchema('Object', noNames), 'Object', 'without x-enum-varnames names mean nothing');
  const mismatched: JsonSchema = { type: 'integer', enum: [1, 2], 'x-enum-varnames': ['One'] };
  t.strictSame(coerceToSchema('One', mismatched), 'One', 'a list that does not pair with the members is not used');
});

t.test('an inline string enum is a constrained string, not a C# enum: no other case, no numbers', async (t) => {
  const language: JsonSchema = { type: 'string', enum: ['sv', 'en'] };
  t.strictSame([coerceToSchema('SV', language), coerceToSchema(1, language), coerceToSchema('1', language)], ['SV', '1', '1']);
  const api = await buildTestApp(t, { data: rebateData });
  await expectRefused(t, api, 'POST', '/messages/templates', { body: { TypeId: 1, Name: 'N', Title: 'T', Body: 'B', Language: 1 } }, { status: 400, field: 'Language' });
});
