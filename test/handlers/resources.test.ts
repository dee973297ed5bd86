import t from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { CUSTOMER_1, CUSTOMER_2, resourceData } from '../fixtures/resources.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, snapshot } from '../helper.js';

// DeleteResource: DELETE /resource/{Id}?CompanyId&Force (the contract; docs/decisions.md,
// "Credentials, roles and companies" and "Reference values").

const isoNow = (value: string) => Math.abs(Date.parse(value) - Date.now()) < 60_000;

/** Resource 101 as the fixture has it: only Canceled/Unbooked bookings, one shared exception. */
const resource101 = {
  Id: 101, Name: 'Chair 2', Active: true, MobilePhone: '+46700000101', EmailNotification: false, SMSNotification: false,
  Created: '2026-01-01T09:00:00.000Z', Updated: '2026-01-01T09:00:00.000Z',
  Exceptions: [{
    Id: 500, IsRecurring: true, IsBlock: true, ReasonText: 'Lunch', ReasonTextPublic: 'Closed',
    From: '2026-02-01T11:00:00.000Z', To: '2026-02-01T12:00:00.000Z', ResourceIds: [100, 101],
  }],
  Bookings: [
    {
      Id: 1003, ServiceId: 1, From: '2026-03-03T10:00:00.000Z', To: '2026-03-03T11:00:00.000Z', BookedSpots: 1, TotalSpots: 1,
      PauseAfterInMinutes: 0, StatusId: 4, Status: 'Canceled',
      Customer: {
        Id: CUSTOMER_1, Firstname: 'Anna', Lastname: 'Berg', Email: 'anna@example.com', Phone: '+46701234567',
        SocialUserName: 'anna.b', ImageUrl: 'https://example.com/anna.png', PersonalIdentityNumber: '199001011234',
        CorporateIdentityNumber: '556000-0000', InvoiceAddress1: 'Storgatan 1', InvoiceAddress2: 'c/o Berg',
        InvoiceCity: 'Stockholm', InvoicePostalCode: '11122', InvoiceCountryCode: 'SE',
        Tags: [
          { Id: 11, CompanyId: COMPANY_A, Name: 'Old', SortOrder: 1, Active: false, CreatedDate: '2026-01-03T03:04:05.000Z' },
          { Id: 10, CompanyId: COMPANY_A, Name: 'VIP', Scope: 1, Color: '#ff0000', SortOrder: 2, Active: true, CreatedDate: '2026-01-02T03:04:05.000Z' },
        ],
      },
    },
    {
      Id: 1004, ServiceId: 1, From: '2026-03-04T10:00:00.000Z', To: '2026-03-04T11:00:00.000Z', BookedSpots: 1, TotalSpots: 1,
      PauseAfterInMinutes: 0, StatusId: 2, Status: 'Unbooked',
    },
  ],
};

t.test('a resource with only canceled/unbooked bookings is deleted, answered as it was', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('DELETE', '/resource/101');
  t.equal(res.statusCode, 200);
  t.same(res.json(), resource101);
  t.strictSame(Object.keys(res.json()).sort(), Object.keys(resource101).sort(), 'no other field');
});

t.test('the delete path removes the row and its links, keeping bookings and exceptions', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  t.equal((await api.call('DELETE', '/resource/101')).statusCode, 200);
  const db = api.store.db;
  t.same(await db.selectFrom('resources').select('id').where('id', '=', 101).execute(), []);
  t.same(await db.selectFrom('booking_resources').select('booking_id').where('resource_id', '=', 101).execute(), []);
  t.same(await db.selectFrom('time_exception_resources').select('resource_id').where('time_exception_id', '=', 500).execute(), [{ resource_id: 100 }]);
  t.same(await db.selectFrom('resource_type_resources').select('resource_id').where('resource_type_id', '=', 300).execute(), [{ resource_id: 100 }]);
  t.same((await db.selectFrom('bookings').select('id').where('id', 'in', [1003, 1004]).orderBy('id').execute()).map((b) => b.id), [1003, 1004]);
  t.equal((await db.selectFrom('resources').select('id').execute()).length, 4, 'the other resources stay');
});

t.test('bookings that are not unbooked or canceled refuse the deletion: 409, nothing changed', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  for (const url of ['/resource/100', '/resource/100?Force=false']) {
    expectRefusal(t, await api.call('DELETE', url), { status: 409, code: 'Conflict', message: /bookings that must first be unbooked/, name: url });
  }
  await unchanged.assert(t);
});

t.test('the store blocks deletion for exactly the statuses the rule names (each of 1..10)', async (t) => {
  // Resource 101 holds a Canceled booking (1003) and booking 1004, given each status in turn.
  for (let status = 1; status <= 10; status++) {
    const data = { ...resourceData, Bookings: resourceData.Bookings.map((b) => (b.Id === 1004 ? { ...b, StatusId: status } : b)) };
    const api = await buildTestApp(t, { data });
    const res = await api.call('DELETE', '/resource/101');
    // docs/decisions.md, "Reference values": all but Unbooked and Canceled block.
    const blocks = status !== 2 && status !== 4;
    t.equal(res.statusCode, blocks ? 409 : 200, `StatusId ${status}`);
  }
});

t.test('Force keeps a blocked resource with Active 0 and Updated now', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('DELETE', '/resource/100?Force=true');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.Active, false);
  t.ok(isoNow(body.Updated), 'Updated is now');
  t.equal(body.Created, '2026-01-01T08:00:00.000Z');
  const row = await api.store.db.selectFrom('resources').selectAll().where('id', '=', 100).executeTakeFirstOrThrow();
  t.equal(row.active, 0);
  t.equal(row.updated, body.Updated);
  t.equal((await api.store.db.selectFrom('booking_resources').select('booking_id').where('resource_id', '=', 100).execute()).length, 3, 'links kept');
});

t.test('the deactivated resource is answered with all its fields and nested lists', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const body = (await api.call('DELETE', '/resource/100?Force=true')).json();
  t.match(body, {
    Id: 100, Name: 'Chair 1', Description: 'By the window', Active: false, Color: '#33aaff', Email: 'chair1@example.com',
    ImageUrl: 'https://example.com/chair1.png', MobilePhone: '+46700000100', AccessGroup: 'front', EmailNotification: true,
    SMSNotification: false, SendEmailReminder: true, SendSMSReminder: false, ResourceCategory: 1, RelayStartsBeforeMinutes: 0,
  });
  t.same(body.Exceptions.map((e: { Id: number; ResourceIds: number[] }) => [e.Id, e.ResourceIds]), [[501, [100]], [500, [100, 101]]]);
  t.same(body.Exceptions[0], { Id: 501, IsRecurring: false, IsBlock: false, From: '2026-01-15T00:00:00.000Z', To: '2026-01-16T00:00:00.000Z', ResourceIds: [100] });
  t.same(body.Bookings.map((b: { Id: number; Status: string }) => [b.Id, b.Status]), [[1001, 'Canceled'], [1000, 'Booked'], [1002, 'Unbooked']]);
  t.same(body.Bookings[0].Customer, { Id: CUSTOMER_2, Firstname: 'Bo', Tags: [] });
  t.match(body.Bookings[1], { StatusId: 1, BookedSpots: 1, TotalSpots: 2, PauseAfterInMinutes: 15, Customer: { Id: CUSTOMER_1 } });
  t.equal(body.Bookings[1].Customer.Tags.length, 2);
  t.notOk('Customer' in body.Bookings[2], 'a booking without customer has none');
});

t.test('Force on a resource without blocking bookings deletes it', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('DELETE', '/resource/102?Force=true');
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    Id: 102, Name: 'Room', Active: false, EmailNotification: false, SMSNotification: false, Exceptions: [], Bookings: [],
    Created: '2026-01-01T10:00:00.000Z', Updated: '2026-01-01T10:00:00.000Z',
  });
  t.same(await api.store.db.selectFrom('resources').select('id').where('id', '=', 102).execute(), []);
});

t.test('an unknown resource, or another company\'s, is 404 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  for (const url of ['/resource/999', '/resource/201', '/resource/200?Force=true']) {
    const res = await api.call('DELETE', url);
    t.equal(res.statusCode, 404, url);
    t.same(res.json().ResponseStatus, { ErrorCode: 'NotFound', Message: 'Resource not found.', Errors: [] });
  }
  await unchanged.assert(t);
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('DELETE', '/resource/102', { as: null }), { status: 401, code: 'Unauthorized', name: 'no token' });
  for (const roles of [[READ], []]) {
    expectRefusal(t, await api.call('DELETE', '/resource/102', { as: roles }), { status: 403, code: 'Forbidden', name: `roles [${roles}]` });
  }
  const otherCompany = await api.call('DELETE', `/resource/201?CompanyId=${COMPANY_B}`);
  t.equal(otherCompany.statusCode, 403, 'another company\'s CompanyId');
  await unchanged.assert(t, 'refusals changed nothing');

  t.equal((await api.call('DELETE', '/resource/102', { as: [WRITE] })).statusCode, 200, 'write role');
  t.equal((await api.call('DELETE', `/resource/101?CompanyId=${COMPANY_A}`, { as: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const superB = await api.call('DELETE', `/resource/201?CompanyId=${COMPANY_B}`, { as: [SUPERADMIN] });
  t.equal(superB.statusCode, 200, 'superadmin may act on another company');
  t.equal(superB.json().Name, 'Bike');
  t.equal((await api.call('DELETE', '/resource/200', { as: [SUPERADMIN] })).statusCode, 404, 'without CompanyId the superadmin acts on its own company');
});

t.test('a blank CompanyId uses the caller\'s company', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('DELETE', '/resource/102?CompanyId=');
  t.equal(res.statusCode, 200);
  t.equal(res.json().Id, 102);
});

t.test('a malformed Force or Id is 400 and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('DELETE', '/resource/100?Force=maybe'), { status: 400, field: 'Force' });
  t.equal((await api.call('DELETE', '/resource/abc')).statusCode, 400);
  await unchanged.assert(t);
});

t.test('CSV response: one header row and one data row, nested lists as JSV', async (t) => {
  const api = await buildTestApp(t, { data: resourceData });
  const res = await api.call('DELETE', '/resource/101?format=csv');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
  t.equal(res.headers['content-disposition'], 'attachment; filename="DeleteResource.csv"');
  const [header, row, end] = res.body.split('\r\n');
  t.equal(header.split(',').slice(0, 3).join(','), 'Id,Name,Description');
  t.ok(header.includes('Exceptions') && header.includes('Bookings'));
  t.match(row, /^101,Chair 2,,true,/);
  t.match(row, /"\[\{Id:500,IsRecurring:true,IsBlock:true,ReasonText:Lunch,/);
  t.match(row, /Status:Canceled,Customer:\{Id:11111111-0000-4000-8000-000000000001,Firstname:Anna/);
  t.equal(end, '', 'ends with CRLF');
});
