import t from 'tap';
import { ImportError, formatIssue, importData } from '../../src/import/import.js';
import { OUTBOX_TABLES, type TableName } from '../../src/store/schema.js';
import { COMPANY_A as A, COMPANY_B as B } from '../fixtures.js';
import { snapshot } from '../snapshot.js';
import { memoryStore, rowCounts } from '../store/store-helper.js';

// The import data file (docs/importing.md; src/import/import.ts).

/** A secret as Standard Webhooks spells it: whsec_ + standard base64 of 31 bytes. */
const GIVEN_SECRET = 'whsec_Z2l2ZW4tc2VjcmV0LWdpdmVuLXNlY3JldC1naXZlbg==';
const CUSTOMER = '33333333-3333-4333-8333-333333333333';
const NOW = new Date('2026-11-21T14:00:00.000Z');

/** A small file touching every collection. */
function goodFile() {
  return {
    Categories: [{ Id: 1, Name: 'Beauty, nails & spa' }],
    BillingMethods: [{ Id: 1, Name: 'Invoice', Countries: ['SE', 'NO'] }],
    MessageTypes: [
      { Id: 1, Name: 'Confirmation e-mail', MaxCharacters: 1000, SendMethodId: 1 },
      { Id: 2, Name: 'Confirmation SMS', MaxCharacters: 160, SendMethodId: 2 },
    ],
    Companies: [
      { Id: A.toUpperCase(), Name: 'A', SitePath: 'a', CategoryIds: [1] },
      { Id: B, Name: 'B', McpTokenLimit: 500 },
    ],
    Services: [{ CompanyId: A, Id: 10, Name: 'Haircut' }],
    Tags: [{ CompanyId: A, Id: 10, Name: 'VIP', Color: '#ff0000' }],
    Customers: [{ CompanyId: A, Id: CUSTOMER, Firstname: 'Anna', Email: 'Anna@Example.com', TagIds: [10] }],
    Resources: [{ CompanyId: A, Id: 10, Name: 'Sara' }, { CompanyId: A, Id: 11, Name: 'Room' }],
    TimeExceptions: [{ CompanyId: A, From: '2026-12-01T12:00:00Z', To: '2026-12-01T13:00:00+01:00', ResourceIds: [10] }],
    Bookings: [{ CompanyId: A, Id: 10, ServiceId: 10, From: '2026-12-01T09:00:00Z', To: '2026-12-01T10:00:00Z', StatusId: 1, CustomerId: CUSTOMER, ResourceIds: [10, 11] }],
    ResourceTypes: [{ CompanyId: A, Name: 'Stylists', Resources: [{ Id: 10, Priority: 1 }, { Id: 11 }] }],
    CustomFields: [{ CompanyId: A, FieldId: 1, Name: 'Length', DataType: 'DropDown', Values: [{ Value: 'Short' }, { Value: 'Long' }], ServiceIds: [10] }],
    Articles: [{ CompanyId: A, Id: 10, Name: 'Gift card', ArticleTypeId: 5, Price: 500, ServiceIds: [10] }],
    RebateCodes: [
      { CompanyId: A, Id: 10, RebateCodeSign: 'Gift500', RebateCodeTypeId: 5, RebateCodeValue: 500, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z', ArticleId: 10, CustomerIds: [CUSTOMER], DaysOfWeek: [1, 7], ServiceIds: [10],
        Transactions: [{ Amount: -100, BookingId: 10, CustomerId: CUSTOMER }], PaymentLog: [{ Amount: 500, CurrencyId: 'SEK' }] },
      { CompanyId: A, Id: 11, RebateCodeSign: 'PUNCH', RebateCodeTypeId: 3, RebateCodeValue: 10, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z' },
      { CompanyId: A, RebateCodeSign: 'TEN', RebateCodeTypeId: 1, RebateCodeValue: 10, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z', FromTime: '08:00:00', ToTime: '17:00:00' },
      { CompanyId: B, RebateCodeSign: 'GIFT500', RebateCodeTypeId: 1, RebateCodeValue: 5, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z' },
    ],
    Printouts: [{ CompanyId: A, Id: 10, Name: 'Day sheet', BodyCell: '{Bookings}' }],
    MessageTemplates: [{ CompanyId: A, TypeId: 2, Name: 'SMS', Title: 'Hi', Body: 'See you', Language: 'sv', Default: true, ServiceIds: [10] }],
    WebhookEndpoints: [
      { CompanyId: A, Id: 'wh1', Url: 'https://example.com/hook', EventTypes: ['booking.created'] },
      { CompanyId: B, Id: 'wh1', Url: 'https://example.com/other', EventTypes: ['booking.created'], Secret: GIVEN_SECRET, Disabled: true },
    ],
    McpUsage: [{ CompanyId: A, TokensUsed: 1200, At: '2026-11-20T10:00:00Z' }],
  };
}

t.test('a good file writes every collection and reports the counts', async (t) => {
  const store = await memoryStore(t);
  const summary = await importData(store, goodFile(), { now: NOW });
  t.match(summary, { Companies: 2, Services: 1, RebateCodes: 4, WebhookEndpoints: 2, McpUsage: 1, Printouts: 1 });
  const counts = await rowCounts(store);
  // Webhook deliveries are written by writes through the API, never by an import.
  for (const [table, count] of Object.entries(counts)) {
    if (OUTBOX_TABLES.includes(table as TableName)) t.equal(count, 0, `${table}: an import records no webhook events`);
    else t.ok(count > 0, `${table} has rows`);
  }
});

t.test('ids are kept, guids lower-cased, dates stored as ISO UTC, defaults filled', async (t) => {
  const store = await memoryStore(t);
  await importData(store, goodFile(), { now: NOW });
  const { db } = store;
  const company = await db.selectFrom('companies').selectAll().where('id', '=', A).executeTakeFirstOrThrow();
  t.equal(company.created, NOW.toISOString(), 'timestamp defaults to now');
  const category = await db.selectFrom('categories').selectAll().executeTakeFirstOrThrow();
  t.same([category.normalized_name, category.active], ['beauty-nails-spa', 1]);
  const exception = await db.selectFrom('time_exceptions').selectAll().executeTakeFirstOrThrow();
  t.equal(exception.to, '2026-12-01T12:00:00.000Z', 'offset converted to UTC');
  t.ok(exception.id > 0, 'id generated when absent');
  const values = await db.selectFrom('custom_field_values').select(['value', 'sort_order']).orderBy('sort_order').execute();
  t.same(values, [{ value: 'Short', sort_order: 0 }, { value: 'Long', sort_order: 1 }]);
});

t.test('rebate codes get remaining amount or usage from their type, and a sign key', async (t) => {
  const store = await memoryStore(t);
  await importData(store, goodFile(), { now: NOW });
  // By sign, not id: where a generated id falls among the file's own ids differs by engine.
  const rows = await store.db.selectFrom('rebate_codes').select(['sign', 'sign_key', 'remaining_amount', 'remaining_usage', 'status_id']).where('company_id', '=', A).execute();
  const codes = new Map(rows.map((row) => [row.sign, row]));
  t.match(codes.get('Gift500'), { sign_key: 'GIFT500', remaining_amount: 500, remaining_usage: null, status_id: 1 });
  t.match(codes.get('PUNCH'), { remaining_amount: null, remaining_usage: 10 });
  t.match(codes.get('TEN'), { remaining_amount: null, remaining_usage: null });
  const days = await store.db.selectFrom('rebate_code_days').select('day_of_week').where('rebate_code_id', '=', 10).execute();
  t.same(days.map((d) => d.day_of_week).sort(), [1, 7]);
});

t.test('webhook secrets are generated (whsec_ + standard base64 of 32 random bytes) unless given', async (t) => {
  const store = await memoryStore(t);
  await importData(store, goodFile(), { now: NOW });
  const hooks = await store.db.selectFrom('webhook_endpoints').selectAll().orderBy('company_id').execute();
  const generated = hooks.find((h) => h.company_id === A)!;
  t.match(generated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(Buffer.from(generated.secret.slice(6), 'base64').length, 32);
  t.equal(generated.event_types, '["booking.created"]');
  t.equal(hooks.find((h) => h.company_id === B)!.secret, GIVEN_SECRET);
});

t.test('a later file may refer to rows already in the store', async (t) => {
  const store = await memoryStore(t);
  await importData(store, goodFile(), { now: NOW });
  const summary = await importData(store, {
    Bookings: [{ CompanyId: A, Id: 11, ServiceId: 10, From: '2026-12-02T09:00:00Z', To: '2026-12-02T10:00:00Z', StatusId: 4, CustomerId: CUSTOMER, ResourceIds: [11] }],
  });
  t.equal(summary.Bookings, 1);
});

/** Several bad records across several collections; each problem must be named. */
function badFile() {
  const file = goodFile() as any;
  file.Services.push({ CompanyId: A, Id: 11, Name: '' }); // Services[1].Name
  file.Services.push({ CompanyId: 'not-a-guid', Id: 12, Name: 'x' }); // Services[2].CompanyId
  file.Customers[0].TagIds = [10, 99]; // unknown tag
  file.Bookings.push({ CompanyId: B, Id: 12, ServiceId: 10, From: '2026-12-01T09:00:00Z', To: '2026-12-01T08:00:00Z', StatusId: 11, CustomerId: CUSTOMER }); // several
  file.RebateCodes.push({ CompanyId: A, RebateCodeSign: 'gift500', RebateCodeTypeId: 1, RebateCodeValue: 10, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: 'next year' });
  file.RebateCodes.push({ CompanyId: A, RebateCodeSign: 'GIFT500 ', RebateCodeTypeId: 1, RebateCodeValue: 150, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2026-02-30T00:00:00Z', FromTime: '8:00' });
  file.MessageTemplates[0].Sender = 'sms@example.com'; // SMS type
  file.WebhookEndpoints[1].EventTypes = [];
  file.McpUsage.push({ CompanyId: A, TokensUsed: -1, At: '2026-11-20', Extra: 1 });
  file.Printouts.push({ CompanyId: A, Id: 10, Name: 'Duplicate id' });
  file.CustomFields[0].Values.push({ value: 'lower-case key' });
  file.Unknown = [];
  return file;
}

t.test('a bad file is refused with every problem named, and nothing is written', async (t) => {
  const store = await memoryStore(t);
  const unchanged = await snapshot(store);
  const err = await importData(store, badFile()).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof ImportError, 'ImportError');
  const lines = (err as ImportError).errors.map(formatIssue);
  const expected = [
    'Unknown: is not a known collection',
    "Services[1].Name: 'Name' must not be empty.",
    "Services[2].CompanyId: 'Company Id' is not a valid uuid.",
    'Customers[0].TagIds[1]: refers to tag 99, which is neither in this file nor in the store',
    "Bookings[1].StatusId: 'Status Id' must be one of: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10.",
    "CustomFields[0].Values[2].value: 'value' is not a known field; did you mean 'Value'?",
    "CustomFields[0].Values[2].Value: 'Value' must not be empty.",
    "RebateCodes[4].ValidTo: 'Valid To' is not a valid date-time.",
    "RebateCodes[5].ValidTo: 'Valid To' is not a valid date-time.",
    "RebateCodes[5].FromTime: 'From Time' is not in the correct format.",
    'Printouts[1].Id: repeats printout id 10 of Printouts[0]',
    "MessageTemplates[0].Sender: 'Sender' cannot be set for SMS message types.",
    'WebhookEndpoints[1].EventTypes: At least one event type is required.',
    "McpUsage[1].TokensUsed: 'Tokens Used' must be greater than or equal to '0'.",
    "McpUsage[1].At: 'At' is not a valid date-time.",
    "McpUsage[1].Extra: 'Extra' is not a known field.",
  ];
  for (const line of expected) t.ok(lines.some((l) => l.startsWith(line)), line);
  t.match((err as Error).message, /RebateCodes\[4\]\.ValidTo: 'Valid To' is not a valid date-time\./);
  await unchanged.assert(t, 'no table changed');
});

t.test('item rules and references are checked once the fields are valid', async (t) => {
  const store = await memoryStore(t);
  const file = goodFile() as any;
  file.Bookings.push({ CompanyId: B, Id: 12, ServiceId: 10, From: '2026-12-01T09:00:00Z', To: '2026-12-01T08:00:00Z', StatusId: 1, CustomerId: CUSTOMER });
  file.RebateCodes.push({ CompanyId: A, RebateCodeSign: ' gift500', RebateCodeTypeId: 1, RebateCodeValue: 150, RemainingUsage: 3, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z' });
  file.Companies.push({ Id: A, Name: 'again' });
  const err = (await importData(store, file).catch((e: unknown) => e)) as ImportError;
  const lines = err.errors.map(formatIssue);
  for (const line of [
    'Companies[2].Id: repeats company id',
    'Bookings[1].ServiceId: refers to service 10, which belongs to another company',
    'Bookings[1].CustomerId: refers to customer 33333333-3333-4333-8333-333333333333, which belongs to another company',
    "Bookings[1].To: 'To' must not be before 'From'.",
    'RebateCodes[4].RebateCodeSign: repeats the sign of RebateCodes[0]',
    "RebateCodes[4].RebateCodeValue: 'Rebate Code Value' must be less than or equal to '100' for a Percent code.",
    "RebateCodes[4].RemainingUsage: 'Remaining Usage' applies only to PunchTicket codes.",
  ]) {
    t.ok(lines.some((l) => l.startsWith(line)), line);
  }
  t.equal((await rowCounts(store)).companies, 0);
});

t.test("items are held to the contract's limits and the domain's rules, as requests are", async (t) => {
  const store = await memoryStore(t);
  const file = goodFile() as any;
  file.MessageTemplates.push({ CompanyId: A, TypeId: 1, Name: 'x'.repeat(201), Title: 'Hi', Body: 'Hello', Sender: 'shop@example.com' });
  file.MessageTemplates.push({ CompanyId: A, TypeId: 1, Name: '   ', Title: 'Hi', Body: 'Hello', Sender: 'not an address' });
  file.WebhookEndpoints.push({ CompanyId: A, Id: 'wh2', Url: 'https://user:secret@example.com/hook', EventTypes: ['booking.created'] });
  file.WebhookEndpoints.push({ CompanyId: A, Id: 'wh3', Url: 'https://example.com/hook', EventTypes: ['booking created'] });
  // base64url, which the Standard Webhooks libraries refuse; and a key of 16 bytes
  file.WebhookEndpoints.push({ CompanyId: A, Id: 'wh4', Url: 'https://example.com/hook', EventTypes: ['x'], Secret: 'whsec_c3R1ZGlvLW5vdmEtZGVtby1yZWJhdGVzLXNlY3JldA' });
  file.WebhookEndpoints.push({ CompanyId: A, Id: 'wh5', Url: 'https://example.com/hook', EventTypes: ['x'], Secret: `whsec_${Buffer.alloc(16, 1).toString('base64')}` });
  const err = (await importData(store, file).catch((e: unknown) => e)) as ImportError;
  t.same(err.errors.map(formatIssue), [
    "MessageTemplates[1].Name: The length of 'Name' must be 200 characters or fewer.",
    "MessageTemplates[2].Name: 'Name' must not be empty.",
    "MessageTemplates[2].Sender: 'Sender' is not a valid email address.",
    "WebhookEndpoints[2].Url: 'Url' must not contain credentials.",
    "WebhookEndpoints[3].EventTypes[0]: An event type may hold only letters, digits, '_', '.' and '-'.",
    "WebhookEndpoints[4].Secret: 'Secret' must be whsec_ followed by the standard base64 of 24 to 64 bytes.",
    "WebhookEndpoints[5].Secret: 'Secret' must be whsec_ followed by the standard base64 of 24 to 64 bytes.",
  ]);
  t.equal((await rowCounts(store)).companies, 0);
});

t.test('bodies are counted in characters; null is absent; dates, guids and event types take one form', async (t) => {
  const store = await memoryStore(t);
  const file = goodFile() as any;
  // 160 characters that are 320 UTF-16 code units: exactly the SMS type's MaxCharacters.
  file.MessageTemplates[0].Body = '\u{1F600}'.repeat(160);
  file.Services[0].Description = null;
  // The server's date-time format takes a space for the `T` and an offset without minutes.
  file.Bookings[0].To = '2026-12-01 11:00:00+01';
  file.Customers[0].Id = CUSTOMER.toUpperCase();
  file.WebhookEndpoints[0].EventTypes = ['booking.created', 'booking.created'];
  await importData(store, file, { now: NOW });
  const { db } = store;
  t.equal((await db.selectFrom('message_templates').select('body').executeTakeFirstOrThrow()).body.length, 320);
  t.equal((await db.selectFrom('services').select('description').executeTakeFirstOrThrow()).description, null);
  t.equal((await db.selectFrom('bookings').select('to').executeTakeFirstOrThrow()).to, '2026-12-01T10:00:00.000Z');
  t.equal((await db.selectFrom('customers').select('id').executeTakeFirstOrThrow()).id, CUSTOMER);
  const hook = await db.selectFrom('webhook_endpoints').select('event_types').where('company_id', '=', A).executeTakeFirstOrThrow();
  t.equal(hook.event_types, '["booking.created"]', 'repeated event types collapse, as UpdateWebhookEndpoint has them');
});

t.test('rows already stored cannot be imported again', async (t) => {
  const store = await memoryStore(t);
  await importData(store, goodFile(), { now: NOW });
  const unchanged = await snapshot(store);
  const err = (await importData(store, {
    Services: [{ CompanyId: A, Id: 10, Name: 'again' }],
    RebateCodes: [{ CompanyId: A, RebateCodeSign: 'gift500', RebateCodeTypeId: 1, RebateCodeValue: 1, ValidFrom: '2026-01-01T00:00:00Z', ValidTo: '2027-01-01T00:00:00Z' }],
    WebhookEndpoints: [{ CompanyId: B, Id: 'wh1', Url: 'https://example.com', EventTypes: ['x'] }],
  }).catch((e: unknown) => e)) as ImportError;
  t.same(err.errors.map(formatIssue), [
    'Services[0].Id: service 10 already exists in the store',
    'RebateCodes[0].RebateCodeSign: is already used by a stored rebate code of this company (signs are unique regardless of case)',
    'WebhookEndpoints[0].Id: is already used by a stored webhook endpoint of this company',
  ]);
  await unchanged.assert(t);
});

t.test('a file that is not an object, or a collection that is not an array, is refused', async (t) => {
  const store = await memoryStore(t);
  await t.rejects(importData(store, [1, 2]), { errors: [{ collection: '(file)' }] });
  await t.rejects(importData(store, { Services: {} }), { errors: [{ collection: 'Services', message: 'must be an array' }] });
  await t.rejects(importData(store, { Services: [null] }), { errors: [{ collection: 'Services', index: 0, message: 'must be an object' }] });
});
