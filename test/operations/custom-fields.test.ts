import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { customFieldData } from '../fixtures/custom-fields.js';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp, type TestApp } from '../helper.js';

// DeleteCustomField (DELETE /customfields/{Id}): the configuration, its values and its
// service links go in one transaction; the answer is the field as it was.

const TABLES = ['custom_fields', 'custom_field_values', 'custom_field_services'] as const;

/** Every row of the custom-field tables, for "nothing changed" comparisons. */
async function snapshot(api: TestApp) {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) out[table] = await api.store.db.selectFrom(table).selectAll().execute();
  return out;
}

const del = async (api: TestApp, url: string, roles: string[] = [WRITE], company = COMPANY_A) =>
  api.inject({ method: 'DELETE', url, headers: await bearer(company, roles) });

t.test('deletes the field and answers it as it was, values and services filled', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await del(api, '/customfields/50');
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    Id: 50,
    CompanyId: COMPANY_A,
    GroupId: 3,
    FieldId: 7,
    Name: 'Allergies',
    Width: 200,
    Column: 'TextField1',
    Description: 'Known allergies',
    DataType: 'DropDown',
    DefaultValue: 'None',
    IsMandatory: true,
    MandatoryErrorMessage: 'Tell us about allergies',
    MaxLength: 50,
    MultipleLineText: false,
    RegEx: '^[A-Za-z ]+$',
    RegExId: 2,
    RegExErrorMessage: 'Letters only',
    IsPublic: true,
    IsHidden: false,
    SortOrder: 4,
    Table: 'Booking',
    // values by SortOrder, services by Id
    Values: [
      { Id: 501, Active: false, SortOrder: 1, Value: 'Gluten' },
      { Id: 500, Active: true, SortOrder: 2, Value: 'Nuts' },
    ],
    Services: [
      { Id: 100, Name: 'Haircut', ImageUrl: 'https://img.example/haircut.png' },
      { Id: 101, Name: 'Colouring' },
    ],
  });
});

t.test('the field, its values and its service links are removed; others stay', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  await del(api, '/customfields/50');
  const after = await snapshot(api);
  t.strictSame(after.custom_fields.map((r: any) => r.id), [51, 60]);
  t.strictSame(after.custom_field_values.map((r: any) => r.id), [600]);
  t.strictSame(after.custom_field_services, [{ custom_field_id: 60, service_id: 200 }]);
  const services = await api.store.db.selectFrom('services').select('id').orderBy('id').execute();
  t.strictSame(services.map((s) => s.id), [100, 101, 200], 'the services themselves are kept');
});

t.test('a field without values or services answers empty lists and omits absent fields', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await del(api, '/customfields/51');
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    Id: 51,
    CompanyId: COMPANY_A,
    FieldId: 8,
    Name: 'Notes',
    DataType: 'TextBox',
    IsMandatory: false,
    MultipleLineText: false,
    IsPublic: false,
    IsHidden: false,
    SortOrder: 0,
    Values: [],
    Services: [],
  });
});

t.test('an unknown field is 404 NotFound and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const before = await snapshot(api);
  const res = await del(api, '/customfields/999');
  t.equal(res.statusCode, 404);
  t.equal(res.json().ResponseStatus.ErrorCode, 'NotFound');
  t.equal(res.json().ResponseStatus.Message, 'Custom field not found.');
  t.strictSame(await snapshot(api), before);
});

t.test('deleting twice: the second call is 404', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  t.equal((await del(api, '/customfields/51')).statusCode, 200);
  t.equal((await del(api, '/customfields/51')).statusCode, 404);
});

t.test("another company's field is 404 and is kept", async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const before = await snapshot(api);
  const res = await del(api, '/customfields/60');
  t.equal(res.statusCode, 404);
  t.equal(res.json().ResponseStatus.ErrorCode, 'NotFound');
  t.notMatch(res.body, /Shoe size/, "another company's data is not shown");
  t.strictSame(await snapshot(api), before);
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const before = await snapshot(api);
  const refused = async (name: string, res: Awaited<ReturnType<typeof del>>) => {
    t.equal(res.statusCode, 401, name);
    t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized', name);
  };
  await refused('no token', await api.inject({ method: 'DELETE', url: '/customfields/50' }));
  await refused('read role', await del(api, '/customfields/50', [READ]));
  await refused('no role', await del(api, '/customfields/50', []));
  await refused('write role, another CompanyId', await del(api, `/customfields/60?CompanyId=${COMPANY_B}`));
  t.strictSame(await snapshot(api), before, 'refused calls changed nothing');

  t.equal((await del(api, '/customfields/51', [SUPERADMIN])).statusCode, 200, 'superadmin, own company');
  const other = await del(api, `/customfields/60?CompanyId=${COMPANY_B}`, [SUPERADMIN]);
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.equal(other.json().CompanyId, COMPANY_B);
  t.strictSame(other.json().Values, [{ Id: 600, Active: true, SortOrder: 0, Value: '42' }]);
  t.strictSame(other.json().Services, [{ Id: 200, Name: 'Spinning' }]);
  t.equal((await del(api, '/customfields/50', [WRITE])).statusCode, 200, 'write role, own company');
});

t.test('a non-integer Id is 400 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const before = await snapshot(api);
  const res = await del(api, '/customfields/abc');
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'Id');
  t.strictSame(await snapshot(api), before);
});

t.test('CSV: one header row and one data row, nested lists as JSV cells', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await del(api, '/customfields/50?format=csv');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="DeleteCustomField.csv"');
  t.equal(
    res.body,
    'Id,CompanyId,GroupId,FieldId,Name,Width,Column,Description,DataType,DefaultValue,IsMandatory,' +
      'MandatoryErrorMessage,MaxLength,MultipleLineText,RegEx,RegExId,RegExErrorMessage,IsPublic,IsHidden,' +
      'SortOrder,Table,Values,Services\r\n' +
      `50,${COMPANY_A},3,7,Allergies,200,TextField1,Known allergies,DropDown,None,true,Tell us about allergies,` +
      '50,false,^[A-Za-z ]+$,2,Letters only,true,false,4,Booking,' +
      '"[{Id:501,Active:false,SortOrder:1,Value:Gluten},{Id:500,Active:true,SortOrder:2,Value:Nuts}]",' +
      '"[{Id:100,Name:Haircut,ImageUrl:""https://img.example/haircut.png""},{Id:101,Name:Colouring}]"\r\n',
  );
  t.equal(await api.store.db.selectFrom('custom_fields').select('id').where('id', '=', 50).executeTakeFirst(), undefined, 'deleted');
});
