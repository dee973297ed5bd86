import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A as A } from '../../src/store/demo-data.js';
import { formatIssue, ImportError, importData } from '../../src/import/import.js';
import { buildTestApp, expectRefusal, snapshot, type TestApp } from '../helper.js';
import { testStore } from '../test-store.js';

// A NUL character (U+0000) anywhere in a request's text is refused with a 400 naming the
// field, on both engines alike (PostgreSQL cannot store it), before anything is read or
// written; an import file holding one is refused like any other bad record.

const NUL = '\u0000';
const message = (label: string) => `'${label}' must not contain the NUL character.`;

async function demoApp(t: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  return buildTestApp(t, { data: buildDemoData(), company: A });
}

t.test('a NUL in a path, a query value, a JSON field, a nested field, a list item or a CSV cell: 400 InvalidCharacter', async (t) => {
  const api = await demoApp(t);
  const unchanged = await snapshot(api.store);
  const hook = { Url: 'https://hooks.example/x', EventTypes: ['resource.deleted'] };
  const cases: Array<[name: string, call: () => ReturnType<TestApp['call']>, field: string, label: string]> = [
    ['path', () => api.call('PUT', `/webhook/endpoints/wh_bookings%00x?CompanyId=${A}`, { body: hook }), 'Id', 'Id'],
    [
      'query value',
      () => api.call('GET', `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=VALUE%001000&ServiceId=101&IncludeConnectedServices=false`),
      'RebateCodeSign',
      'Rebate Code Sign',
    ],
    ['JSON body field', () => api.call('POST', '/resourcetypes', { body: { Name: `Sty${NUL}lists` } }), 'Name', 'Name'],
    [
      'nested field',
      () => api.call('POST', '/rebatecodes/fromarticle', { body: { ArticleId: 103, Customer: { Firstname: `Li${NUL}sa`, Email: 'lisa@example.se' } } }),
      'Customer.Firstname',
      'Customer Firstname',
    ],
    ['list item', () => api.call('PUT', `/webhook/endpoints/wh_bookings?CompanyId=${A}`, { body: { ...hook, EventTypes: ['resource.deleted', `x${NUL}`] } }), 'EventTypes[1]', 'Event Types'],
    ['CSV cell', () => api.call('POST', '/resourcetypes', { csv: `Name,Description\r\nStylists,Cut${NUL}and colour\r\n` }), 'Description', 'Description'],
  ];
  for (const [name, call, field, label] of cases) {
    const status = expectRefusal(t, await call(), { status: 400, code: 'InvalidCharacter', field, name });
    t.equal(status.Message, message(label), `${name}: the message names the field`);
  }
  await unchanged.assert(t, 'nothing was written');
});

t.test('every field holding a NUL is listed', async (t) => {
  const api = await demoApp(t);
  expectRefusal(t, await api.call('POST', '/messages/templates', { body: { TypeId: 2, Name: `a${NUL}`, Title: 'ok', Body: `${NUL}b`, Services: [101] } }), {
    status: 400,
    errors: [['InvalidCharacter', 'Name'], ['InvalidCharacter', 'Body']],
  });
});

t.test('the check comes after authentication and authorization', async (t) => {
  const api = await demoApp(t);
  const body = { Name: `x${NUL}` };
  expectRefusal(t, await api.call('POST', '/resourcetypes', { body, as: null }), { status: 401, code: 'Unauthorized' });
  expectRefusal(t, await api.call('POST', '/resourcetypes', { body, as: [] }), { status: 403, code: 'Forbidden' });
});

t.test('other control characters and text that merely names NUL are accepted', async (t) => {
  const api = await demoApp(t);
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'Tab\there \\u0000 \u0001', Description: 'NUL' } });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().Name, 'Tab\there \\u0000 \u0001');
});

t.test('an import file with a NUL in a field is refused, naming collection, index and field; nothing is written', async (t) => {
  const store = await testStore(t);
  const unchanged = await snapshot(store);
  const data = buildDemoData() as ReturnType<typeof buildDemoData> & Record<string, any[]>;
  data.Resources[1] = { ...data.Resources[1], Name: `Sa${NUL}ra` };
  data.Customers[0] = { ...data.Customers[0], Firstname: `A${NUL}`, Lastname: `B${NUL}` };
  const err = await importData(store, data).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof ImportError, 'refused');
  const lines = (err as ImportError).errors.map(formatIssue);
  t.same(
    lines.filter((line) => line.includes('NUL')),
    [`Customers[0].Firstname: ${message('Firstname')}`, `Customers[0].Lastname: ${message('Lastname')}`, `Resources[1].Name: ${message('Name')}`],
  );
  await unchanged.assert(t, 'nothing was written');
});
