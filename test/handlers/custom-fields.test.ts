import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { ALLERGIES, customFieldData } from '../fixtures/custom-fields.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot } from '../helper.js';

// DeleteCustomField (DELETE /customfields/{Id}): the configuration, its values and its
// service links go in one transaction; the answer is the field as it was.

t.test('deletes the field and answers it as it was, values and services filled', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await api.call('DELETE', '/customfields/50');
  t.equal(res.statusCode, 200);
  t.strictSame(res.json(), {
    ...ALLERGIES,
    CompanyId: COMPANY_A,
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
  await api.call('DELETE', '/customfields/50');
  const { db } = api.store;
  t.strictSame((await db.selectFrom('custom_fields').select('id').execute()).map((r) => r.id), [51, 60]);
  t.strictSame((await db.selectFrom('custom_field_values').select('id').execute()).map((r) => r.id), [600]);
  t.strictSame(await db.selectFrom('custom_field_services').selectAll().execute(), [{ custom_field_id: 60, service_id: 200 }]);
  const services = await db.selectFrom('services').select('id').orderBy('id').execute();
  t.strictSame(services.map((s) => s.id), [100, 101, 200], 'the services themselves are kept');
});

t.test('a field without values or services answers empty lists and omits absent fields', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await api.call('DELETE', '/customfields/51');
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
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('DELETE', '/customfields/999'), { status: 404, code: 'NotFound', message: 'Custom field not found.' });
  await unchanged.assert(t);
});

t.test('deleting twice: the second call is 404', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  t.equal((await api.call('DELETE', '/customfields/51')).statusCode, 200);
  t.equal((await api.call('DELETE', '/customfields/51')).statusCode, 404);
});

t.test("another company's field is 404 and is kept", async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const unchanged = await snapshot(api.store);
  const res = await api.call('DELETE', '/customfields/60');
  expectRefusal(t, res, { status: 404, code: 'NotFound' });
  t.notMatch(res.body, /Shoe size/, "another company's data is not shown");
  await unchanged.assert(t);
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const unchanged = await snapshot(api.store);
  const unauthorized = { status: 401, code: 'Unauthorized' };
  expectRefusal(t, await api.call('DELETE', '/customfields/50', { as: null }), { ...unauthorized, name: 'no token' });
  expectRefusal(t, await api.call('DELETE', '/customfields/50', { as: [READ] }), { ...unauthorized, name: 'read role' });
  expectRefusal(t, await api.call('DELETE', '/customfields/50', { as: [] }), { ...unauthorized, name: 'no role' });
  expectRefusal(t, await api.call('DELETE', `/customfields/60?CompanyId=${COMPANY_B}`), { ...unauthorized, name: 'write role, another CompanyId' });
  await unchanged.assert(t, 'refused calls changed nothing');

  t.equal((await api.call('DELETE', '/customfields/51', { as: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const other = await api.call('DELETE', `/customfields/60?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.equal(other.json().CompanyId, COMPANY_B);
  t.strictSame(other.json().Values, [{ Id: 600, Active: true, SortOrder: 0, Value: '42' }]);
  t.strictSame(other.json().Services, [{ Id: 200, Name: 'Spinning' }]);
  t.equal((await api.call('DELETE', '/customfields/50', { as: [WRITE] })).statusCode, 200, 'write role, own company');
});

t.test('a non-integer Id is 400 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('DELETE', '/customfields/abc'), { status: 400, field: 'Id' });
  await unchanged.assert(t);
});

t.test('CSV: one header row and one data row, nested lists as JSV cells', async (t) => {
  const api = await buildTestApp(t, { data: customFieldData });
  const res = await api.call('DELETE', '/customfields/50?format=csv');
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
