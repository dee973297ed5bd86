import { sql } from 'kysely';
import t from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { rebateCodesRepository } from '../../src/store/repositories/rebate-codes.js';
import { COMPANY_A, COMPANY_B, UNUSED_GUID } from '../fixtures.js';
import { ANNA, BO, CARL_B, rebateData } from '../fixtures/rebate-codes.js';
import { READ, SUPERADMIN, TEST_SECRET, WRITE, buildTestApp, expectRefusal, snapshot, tableRows } from '../helper.js';

// CreateArticleRebateCode: POST /rebatecodes/fromarticle

const SIGN = /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/;
const DAY = 24 * 3600 * 1000;
const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData });
const FROM_ARTICLE = '/rebatecodes/fromarticle';
const customer = (api: Awaited<ReturnType<typeof setup>>, id: string) =>
  api.store.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

t.test('a gift card article becomes a GiftCard code with the full object', async (t) => {
  const api = await setup(t);
  const seller = await mintToken(TEST_SECRET, { companyId: COMPANY_A, roles: [WRITE], sub: 'seller-7' });
  const purchase = {
    ArticleId: 1,
    Customer: { Firstname: 'Eva', Lastname: 'Lind', Email: 'eva@example.com', Phone: '0709', SubscribedToNewsletter: true, PersonalIdentityNumber: '19800101-1234' },
    InvoiceAddress: { InvoiceAddress1: 'Storgatan 1', InvoiceCity: 'Malmö', InvoicePostalCode: '21100', InvoiceCountryCode: 'SE', CorporateIdentityNumber: '556000-0000' },
    Receiver: { Firstname: 'Olle', Lastname: 'Lind', Email: 'olle@example.com', ReceiverMessage: 'Happy birthday!' },
  };
  const before = Date.now();
  const res = await api.call('POST', FROM_ARTICLE, { body: purchase, as: seller });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body.RebateCodeSign, SIGN);
  const from = Date.parse(body.ValidFrom);
  t.ok(from >= before - 1000 && from <= Date.now(), 'ValidFrom is now');
  t.equal(Date.parse(body.ValidTo) - from, 365 * DAY, 'ValidTo is ValidDays (365) later');
  const newCustomer = await api.store.db.selectFrom('customers').selectAll().where('email', '=', 'eva@example.com').executeTakeFirstOrThrow();
  t.same(body, {
    Id: body.Id, CompanyId: COMPANY_A, ValidFrom: body.ValidFrom, ValidTo: body.ValidTo,
    CreatedBy: 'seller-7', Created: body.ValidFrom, Updated: body.ValidFrom,
    RebateCodeSign: body.RebateCodeSign, RebateCodeValue: 500, RebateCodeTypeId: 5, Name: 'Gift card 500',
    RebateCodeStatusId: 1, StatusName: 'Active', MaxNumberOfUses: 0, MaxNumberOfUsesPerCustomer: 0, NumberOfUsesUsed: 0,
    DaysOfWeek: [],
    Services: [
      { Id: 100, Name: 'Haircut', Description: 'Cut and style', Active: true },
      { Id: 101, Name: 'Massage', Active: true },
    ],
    Article: {
      CompanyId: COMPANY_A, Id: 1, Name: 'Gift card 500', ArticleTypeId: 5, Description: 'A gift', Active: true, Price: 500,
      CurrencyId: 'SEK', SortOrder: 1, UpdatedDate: '2026-01-01T00:00:00.000Z', CreatedDate: '2026-01-01T00:00:00.000Z',
      Services: [
        { CompanyId: COMPANY_A, Id: body.Article.Services[0].Id, ServiceId: 100, ArticleId: 1 },
        { CompanyId: COMPANY_A, Id: body.Article.Services[1].Id, ServiceId: 101, ArticleId: 1 },
      ],
      ServiceIds: [100, 101], PriceSign: 'kr', VAT: 0.25, ValidDays: 365, SendNotification: false,
    },
    Transactions: [],
    RemainingAmount: 500,
    Customers: [{ Id: newCustomer.id, Firstname: 'Eva', Lastname: 'Lind', Email: 'eva@example.com', Phone: '0709' }],
    PaymentReceived: false, RebateCodeCurrencySign: 'kr', ActiveByStatus: true, PriceSign: 'kr', RebateCodeTypeName: 'GiftCard',
    Company: { SitePath: 'salon-a', PaymentProviderId: 2 },
    PaymentLog: [],
  });
  t.match(newCustomer, {
    company_id: COMPANY_A, firstname: 'Eva', lastname: 'Lind', phone: '0709', personal_identity_number: '19800101-1234',
    invoice_address1: 'Storgatan 1', invoice_city: 'Malmö', invoice_postal_code: '21100', invoice_country_code: 'SE',
    corporate_identity_number: '556000-0000', subscribed_to_newsletter: 1, comments: null,
  }, 'a new e-mail creates the customer with the supplied data');
  const stored = await api.store.db.selectFrom('rebate_codes').selectAll().where('id', '=', body.Id).executeTakeFirstOrThrow();
  t.match(stored, {
    sign_key: body.RebateCodeSign, article_id: 1, receiver_firstname: 'Olle', receiver_lastname: 'Lind',
    receiver_email: 'olle@example.com', receiver_message: 'Happy birthday!', receiver_customer_id: null,
  }, 'the receiver is kept');
  const links = (table: 'rebate_code_services' | 'rebate_code_customers') =>
    api.store.db.selectFrom(table).selectAll().where('rebate_code_id', '=', body.Id).execute();
  t.same((await links('rebate_code_services')).map((l) => l.service_id).sort(), [100, 101], "the article's services are the code's");
  t.same(await links('rebate_code_customers'), [{ rebate_code_id: body.Id, customer_id: newCustomer.id }], 'the buyer is its customer');
  const lookup = await api.call('GET', `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&RebateCodeSign=${body.RebateCodeSign}&IncludeConnectedServices=true&IncludeConnectedDaysOfWeek=true&IncludeConnectedCustomers=true&ServiceId=100&CustomerEmail=eva@example.com`, { as: seller });
  t.same(lookup.json(), body, 'read back, the code is the one answered');
});

t.test('purchases by one new e-mail at once all succeed and share one new profile', async (t) => {
  const api = await setup(t);
  const answers = await Promise.all(
    ['new.buyer@example.com', 'NEW.BUYER@example.com', 'new.buyer@example.com', 'New.Buyer@example.com'].map((Email) =>
      api.call('POST', FROM_ARTICLE, { body: { ArticleId: 3, Customer: { Email, Firstname: 'New' } } }),
    ),
  );
  t.same(answers.map((a) => a.statusCode), [200, 200, 200, 200]);
  const profiles = await api.store.db.selectFrom('customers').select('id').where(sql`lower(email)`, '=', 'new.buyer@example.com').execute();
  t.equal(profiles.length, 1, 'one profile');
  t.same(new Set(answers.map((a) => a.json().Customers[0].Id)), new Set([profiles[0].id]), 'every code is connected to it');
});

t.test('a sign taken in the company, in any case, is skipped by the insert, which then writes nothing', async (t) => {
  const api = await setup(t);
  const codes = rebateCodesRepository(api.store);
  const row = (company: string, sign: string) => ({
    company_id: company, sign, sign_key: sign.toUpperCase(), type_id: 1, value: 5, valid_from: '2026-01-01T00:00:00.000Z',
    valid_to: '2026-02-01T00:00:00.000Z', created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z',
  });
  const unchanged = await snapshot(api.store);
  t.equal(await codes.insert(row(COMPANY_A, 'gift-aaaa'), [100], [ANNA]), undefined, 'the taken sign answers no row');
  await unchanged.assert(t, 'neither the code nor its links are written');
  t.ok(await codes.insert(row(COMPANY_B, 'ABCD-EFGH'), [], []), 'a sign is unique per company only');
  const other = await codes.insert({ ...row(COMPANY_A, 'NEW-ONE'), id: 1000 }, [], []).then(() => undefined, (e: unknown) => e);
  t.ok(other, 'another unique violation is still an error');
});

t.test('a punch ticket takes its uses from Amount; a value card rounds RebateCodeValue', async (t) => {
  const api = await setup(t);
  const punch = (await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 3 } })).json();
  t.match(punch, { RebateCodeTypeId: 3, RebateCodeTypeName: 'PunchTicket', RebateCodeValue: 10, RemainingUsage: 10, Services: [{ Id: 101 }], Customers: [] });
  t.notOk('RemainingAmount' in punch);
  t.equal(Date.parse(punch.ValidTo) - Date.parse(punch.ValidFrom), 180 * DAY);
  const card = (await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 2 } })).json();
  t.match(card, { RebateCodeTypeId: 4, RebateCodeTypeName: 'ValueCard', RebateCodeValue: 1000, RemainingAmount: 999.5, Services: [] });
  t.notOk('RemainingUsage' in card);
  t.not(card.RebateCodeSign, punch.RebateCodeSign, 'each code gets its own sign');
});

t.test('without a Customer the code has no customer and none is created', async (t) => {
  const api = await setup(t);
  const customers = await tableRows(api.store, 'customers');
  const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Receiver: { Email: 'olle@example.com' } } });
  t.equal(res.statusCode, 200);
  t.same(res.json().Customers, []);
  t.same(await tableRows(api.store, 'customers'), customers);
});

t.test('an existing e-mail (any case) keeps the profile and appends the differing details to its comments', async (t) => {
  const api = await setup(t);
  const profile = await customer(api, ANNA);
  const purchase = {
    ArticleId: 1,
    Customer: { Email: 'ANNA.BERG@example.com', Firstname: 'Anna', Lastname: 'Bergström', Phone: '0701111111', PersonalIdentityNumber: '19900101-0000' },
    InvoiceAddress: { InvoiceCity: 'Lund', InvoiceAddress1: 'Byvägen 2' },
  };
  const res = await api.call('POST', FROM_ARTICLE, { body: purchase });
  t.equal(res.statusCode, 200);
  t.same(res.json().Customers, [{ Id: ANNA, Firstname: 'Anna', Lastname: 'Berg', Email: 'Anna.Berg@example.com', Phone: '0701111111' }]);
  const today = new Date().toISOString().slice(0, 10);
  t.same(await customer(api, ANNA), {
    ...profile,
    comments: `${today}: Lastname 'Bergström' (profile 'Berg'); PersonalIdentityNumber '19900101-0000' (profile empty); InvoiceAddress1 'Byvägen 2' (profile empty)`,
  }, 'only comments changed');
  const companyCustomers = rebateData.Customers.filter((c) => c.CompanyId === COMPANY_A).length;
  t.equal(await api.store.db.selectFrom('customers').select('id').where('company_id', '=', COMPANY_A).execute().then((r) => r.length), companyCustomers, 'no new customer');
});

t.test('existing comments are kept and the new line appended; identical data adds nothing', async (t) => {
  const api = await setup(t);
  await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Customer: { Email: 'bo@example.com', Firstname: 'Bo', Lastname: 'Ek' } } });
  t.equal((await customer(api, BO)).comments, 'Prefers mornings');
  await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Customer: { Email: 'bo@example.com', Firstname: 'Bosse' } } });
  t.equal((await customer(api, BO)).comments, `Prefers mornings\n${new Date().toISOString().slice(0, 10)}: Firstname 'Bosse' (profile 'Bo')`);
});

t.test('a CustomerId names the buyer: connected, profile unchanged', async (t) => {
  const api = await setup(t);
  const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 3, Customer: { CustomerId: BO.toUpperCase(), Firstname: 'Bo' } } });
  t.equal(res.statusCode, 200);
  t.same(res.json().Customers.map((c: { Id: string }) => c.Id), [BO]);
  t.equal((await customer(api, BO)).comments, 'Prefers mornings');
});

t.test('a CustomerId that is not a customer of the company is 400 and changes nothing', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  for (const id of [CARL_B, UNUSED_GUID]) {
    const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Customer: { CustomerId: id, Email: 'new@example.com' } } });
    t.equal(res.statusCode, 400);
    t.same(res.json().ResponseStatus, {
      ErrorCode: 'InvalidCustomerId', Message: "'Customer Id' must be a customer of the company.",
      Errors: [{ ErrorCode: 'InvalidCustomerId', FieldName: 'Customer.CustomerId', Message: "'Customer Id' must be a customer of the company." }],
    });
  }
  const receiver = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Customer: { Email: 'new@example.com' }, Receiver: { CustomerId: CARL_B } } });
  expectRefusal(t, receiver, { status: 400, field: 'Receiver.CustomerId' });
  await unchanged.assert(t, 'no code, no customer');
});

t.test('a Customer without CustomerId and Email is 400 NotEmpty', async (t) => {
  const api = await setup(t);
  const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1, Customer: { Firstname: 'Nobody' } } });
  t.equal(res.statusCode, 400);
  t.match(res.json().ResponseStatus, { ErrorCode: 'NotEmpty', Errors: [{ FieldName: 'Customer.Email' }] });
});

t.test('an article of another type is 400 InvalidArticleType on ArticleId and changes nothing', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 4, Customer: { Email: 'x@example.com' } } });
  t.equal(res.statusCode, 400);
  const message = "'Article Id' must name an article of type PunchTicket (3), ValueCard (4) or GiftCard (5); article 4 is of type 1.";
  t.same(res.json().ResponseStatus, { ErrorCode: 'InvalidArticleType', Message: message, Errors: [{ ErrorCode: 'InvalidArticleType', FieldName: 'ArticleId', Message: message }] });
  await unchanged.assert(t);
});

t.test('an inactive article is 400 ArticleInactive; one without ValidDays is 400 InvalidArticle', async (t) => {
  const api = await setup(t);
  const unchanged = await snapshot(api.store);
  t.match((await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 5 } })).json().ResponseStatus, { ErrorCode: 'ArticleInactive', Message: 'Article 5 is not active.' });
  t.match((await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 6 } })).json().ResponseStatus, { ErrorCode: 'InvalidArticle', Errors: [{ FieldName: 'ArticleId' }] });
  await unchanged.assert(t);
});

t.test('an unknown article, or another company\'s, is 404', async (t) => {
  const api = await setup(t);
  for (const id of [7, 999]) {
    const res = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: id } });
    t.equal(res.statusCode, 404);
    t.same(res.json().ResponseStatus, { ErrorCode: 'NotFound', Message: `Article ${id} not found.`, Errors: [] });
  }
});

t.test('a body without ArticleId is a validation failure', async (t) => {
  const api = await setup(t);
  const res = await api.call('POST', FROM_ARTICLE, { body: { Customer: { Email: 'not-an-email' } } });
  t.equal(res.statusCode, 400);
  t.ok(res.json().ResponseStatus.Errors.some((e: { FieldName: string }) => e.FieldName === 'ArticleId'));
});

t.test('auth: a write administrator of the company; other companies only for superadmin', async (t) => {
  const api = await setup(t);
  t.equal((await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1 }, as: null })).statusCode, 401, 'no token');
  for (const roles of [[WRITE], [SUPERADMIN]]) {
    t.equal((await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1 }, as: roles })).statusCode, 200, `roles ${roles.join()}`);
  }
  for (const roles of [[READ], []]) {
    t.equal((await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 1 }, as: roles })).statusCode, 401, `roles ${roles.join() || 'none'}`);
  }
  const unchanged = await snapshot(api.store);
  expectRefusal(t, await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 7, CompanyId: COMPANY_B }, as: [WRITE] }), { status: 401, code: 'Unauthorized' });
  await unchanged.assert(t);
  const superadmin = await api.call('POST', FROM_ARTICLE, { body: { ArticleId: 7, CompanyId: COMPANY_B }, as: [SUPERADMIN] });
  t.equal(superadmin.statusCode, 200);
  t.match(superadmin.json(), { CompanyId: COMPANY_B, RebateCodeValue: 300, Company: { SitePath: 'gym-b' } });
});

t.test('the answer as CSV', async (t) => {
  const api = await setup(t);
  const res = await api.call('POST', `${FROM_ARTICLE}?format=csv`, { body: { ArticleId: 3 } });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="CreateArticleRebateCode.csv"');
  const [header, row] = res.body.split('\r\n');
  t.match(header, /^Id,CompanyId,ValidFrom,ValidTo,/);
  t.match(row, new RegExp(`,${COMPANY_A},`));
  t.match(row, /,PunchTicket,/);
});
