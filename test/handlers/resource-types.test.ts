import t from 'tap';
import { COMPANY_A, COMPANY_B, UNKNOWN_COMPANY } from '../fixtures.js';
import { resourceData } from '../fixtures/resources.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot } from '../helper.js';

// CreateResourceType: POST /resourcetypes (the contract; docs/decisions.md, "Credentials, roles
// and companies").

const isoNow = (value: string) => Math.abs(Date.parse(value) - Date.now()) < 60_000;

/** Resource 100 as a member of a type (every field set in the fixture). */
const chair1 = {
  Id: 100, Name: 'Chair 1', Active: true, Description: 'By the window', Email: 'chair1@example.com', Phone: '+46700000100',
  Color: '#33aaff', ImageUrl: 'https://example.com/chair1.png', EmailNotification: true, SMSNotification: false,
  EmailReminder: true, SMSReminder: false,
};

t.test('creates the type with its resources and answers it', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const body = {
    Name: 'Stations', Description: 'Work stations', Active: true,
    Resources: [{ Id: 101 }, { Id: 100, Priority: 2 }, { Id: 102, Priority: 0 }],
  };
  const res = await api.call('POST', '/resourcetypes', { body });
  t.equal(res.statusCode, 200);
  const { Id, Created, Updated, ...rest } = res.json();
  t.ok(Id > 300, 'a new id');
  t.ok(isoNow(Created), 'Created is now');
  t.equal(Updated, Created);
  t.same(rest, {
    Name: 'Stations', Description: 'Work stations', Active: true,
    Resources: [
      { ...chair1, Priority: 2 },
      { Id: 101, Name: 'Chair 2', Active: true, Phone: '+46700000101', EmailNotification: false, SMSNotification: false, EmailReminder: false, SMSReminder: false },
      { Id: 102, Name: 'Room', Active: false, Priority: 0, EmailNotification: false, SMSNotification: false, EmailReminder: false, SMSReminder: false },
    ],
  });
  const row = await api.store.db.selectFrom('resource_types').selectAll().where('id', '=', Id).executeTakeFirstOrThrow();
  t.same(row, { id: Id, company_id: COMPANY_A, name: 'Stations', description: 'Work stations', active: 1, created: Created, updated: Created });
});

t.test('priorities are kept and an absent priority stays absent', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'P', Resources: [{ Id: 100, Priority: 5 }, { Id: 101 }] } });
  const links = await api.store.db
    .selectFrom('resource_type_resources').select(['resource_id', 'priority'])
    .where('resource_type_id', '=', res.json().Id).orderBy('resource_id').execute();
  t.same(links, [{ resource_id: 100, priority: 5 }, { resource_id: 101, priority: null }]);
  t.equal(res.json().Resources[0].Priority, 5);
  t.notOk('Priority' in res.json().Resources[1]);
});

t.test('Active is the request value; absent means false', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'A', Active: true } })).json().Active, true);
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'B', Active: false } })).json().Active, false);
  const absent = (await api.call('POST', '/resourcetypes', { body: { Name: 'C' } })).json();
  t.equal(absent.Active, false);
  t.same(absent.Resources, [], 'no resources listed: an empty list');
  t.notOk('Description' in absent);
});

t.test('inactive resources are listed: callers are administrators', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'Rooms', Resources: [{ Id: 102 }] } });
  t.same(res.json().Resources.map((r: { Id: number; Active: boolean }) => [r.Id, r.Active]), [[102, false]]);
});

t.test('resources must belong to the company: 400 naming the entry, nothing written', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'X', Resources: [{ Id: 100 }, { Id: 200 }, { Id: 999 }] } });
  t.equal(res.statusCode, 400);
  t.same(res.json().ResponseStatus, {
    ErrorCode: 'UnknownResource',
    Message: 'Resource 200 is not a resource of the company.',
    Errors: [
      { ErrorCode: 'UnknownResource', FieldName: 'Resources[1].Id', Message: 'Resource 200 is not a resource of the company.' },
      { ErrorCode: 'UnknownResource', FieldName: 'Resources[2].Id', Message: 'Resource 999 is not a resource of the company.' },
    ],
  });
  await unchanged.assert(t);
});

t.test('a resource listed twice is 400, nothing written', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'X', Resources: [{ Id: 100, Priority: 1 }, { Id: 101 }, { Id: 100, Priority: 2 }] } });
  t.equal(res.statusCode, 400);
  t.same(res.json().ResponseStatus.Errors, [
    { ErrorCode: 'DuplicateResource', FieldName: 'Resources[2].Id', Message: 'Resource 100 is listed more than once.' },
  ]);
  await unchanged.assert(t);
});

t.test('Name is required and not blank; bad fields are 400 with their FieldName', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  const cases: Array<[unknown, string, string]> = [
    [{}, 'Name', 'NotEmpty'],
    [{ Name: '' }, 'Name', 'NotEmpty'],
    [{ Name: '   ' }, 'Name', 'NotEmpty'],
    [{ Name: 'X', Resources: [{ Priority: 1 }] }, 'Resources[0].Id', 'NotEmpty'],
    [{ Name: 'X', Resources: [{ Id: 0 }] }, 'Resources[0].Id', 'GreaterThanOrEqual'],
    [{ Name: 'X', Active: 'often' }, 'Active', 'InvalidType'],
  ];
  for (const [payload, field, code] of cases) {
    expectRefusal(t, await api.call('POST', '/resourcetypes', { body: payload }), { status: 400, code, field, name: JSON.stringify(payload) });
  }
  t.same((await api.call('POST', '/resourcetypes', { body: { Name: ' ' } })).json().ResponseStatus.Message, "'Name' must not be empty.");
  await unchanged.assert(t);
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('POST', '/resourcetypes', { body: { Name: 'X' }, as: null }), { status: 401, code: 'Unauthorized', name: 'no token' });
  for (const roles of [[READ], []]) {
    expectRefusal(t, await api.call('POST', '/resourcetypes', { body: { Name: 'X' }, as: roles }), { status: 403, code: 'Forbidden', name: `roles [${roles}]` });
  }
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'X', CompanyId: COMPANY_B } })).statusCode, 403, 'another company\'s CompanyId');
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'X', Resources: [{ Id: 201 }] } })).statusCode, 400, 'another company\'s resource');
  await unchanged.assert(t, 'refusals changed nothing');

  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'W' }, as: [WRITE] })).statusCode, 200, 'write role');
  t.equal((await api.call('POST', '/resourcetypes', { body: { Name: 'S', CompanyId: COMPANY_A }, as: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const superB = await api.call('POST', '/resourcetypes', { body: { Name: 'Machines', CompanyId: COMPANY_B, Resources: [{ Id: 201 }] }, as: [SUPERADMIN] });
  t.equal(superB.statusCode, 200, 'superadmin may act on another company');
  t.same(superB.json().Resources.map((r: { Id: number }) => r.Id), [201]);
  const row = await api.store.db.selectFrom('resource_types').select('company_id').where('id', '=', superB.json().Id).executeTakeFirstOrThrow();
  t.equal(row.company_id, COMPANY_B, 'added to the named company');
});

t.test('a CompanyId that names no company is 400, nothing written', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  const res = await api.call('POST', '/resourcetypes', { body: { Name: 'X', CompanyId: UNKNOWN_COMPANY }, as: [SUPERADMIN] });
  t.equal(res.statusCode, 400);
  t.same(res.json().ResponseStatus.Errors, [
    { ErrorCode: 'UnknownCompany', FieldName: 'CompanyId', Message: `Company ${UNKNOWN_COMPANY} does not exist.` },
  ]);
  await unchanged.assert(t);
});

t.test('CSV response: one header row and one data row, resources as JSV', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('POST', '/resourcetypes?format=csv', { body: { Name: 'Chairs, front', Active: true, Resources: [{ Id: 101, Priority: 1 }] } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(res.headers['content-disposition'], 'attachment; filename="CreateResourceType.csv"');
  const [header, row, end] = res.body.split('\r\n');
  t.equal(header, 'Id,Name,Description,Resources,Active,Created,Updated');
  t.match(row, /^\d+,"Chairs, front",,"\[\{Id:101,Name:Chair 2,Active:true,Phone:\+46700000101,Priority:1,/);
  t.match(row, /,true,\d{4}-\d\d-\d\dT[^,]+Z,\d{4}-\d\d-\d\dT[^,]+Z$/);
  t.equal(end, '');
});
