import t from 'tap';
import { COMPANY_A, COMPANY_B, UNKNOWN_COMPANY } from '../fixtures.js';
import { EMAIL_MAX, EMAIL_MESSAGE_TYPE, EMAIL_TYPE, SMS_MAX, SMS_TYPE, messageData } from '../fixtures/messages.js';
import { READ, SUPERADMIN, badRequest, buildTestApp, expectRefusal, expectRefused, snapshot, type CallOptions } from '../helper.js';

// CreateMessageTemplate (POST /messages/templates): every rule is checked before the one
// write transaction; the answer is the template with its MessageType and Services.

const TEMPLATES = '/messages/templates';
const valid = { TypeId: EMAIL_TYPE, Name: 'Confirmation', Title: 'Your booking', Body: 'See you soon' };

t.test('creates an e-mail template with sender, language and services', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const res = await api.call('POST', TEMPLATES, { body: { ...valid, Sender: ' info@salon-a.example ', Language: 'sv', Services: [101, 100, 101] } });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.type(body.Id, 'number');
  t.not(body.Id, 30, 'a new id');
  t.strictSame(body, {
    Id: body.Id,
    Name: 'Confirmation',
    Title: 'Your booking',
    Body: 'See you soon',
    Sender: 'info@salon-a.example',
    Default: false,
    MessageType: EMAIL_MESSAGE_TYPE,
    Language: 'sv',
    // in the order asked for, the duplicate collapsed
    Services: [{ Id: 101, Name: 'Colouring' }, { Id: 100, Name: 'Haircut', ImageUrl: 'https://img.example/haircut.png' }],
  });
  const row = await api.store.db.selectFrom('message_templates').selectAll().where('id', '=', body.Id).executeTakeFirstOrThrow();
  t.match(row, { company_id: COMPANY_A, type_id: EMAIL_TYPE, sender: 'info@salon-a.example', language: 'sv', is_default: 0 });
  t.ok(Date.now() - Date.parse(row.created) < 60_000, 'created now');
  const links = await api.store.db.selectFrom('message_template_services').selectAll().where('message_template_id', '=', body.Id).orderBy('service_id').execute();
  t.strictSame(links.map((l) => l.service_id), [100, 101]);
});

t.test('Services null, empty or left out: valid for all services, answered as an empty list', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  for (const services of [{ Services: null }, { Services: [] }, {}]) {
    const res = await api.call('POST', TEMPLATES, { body: { ...valid, ...services } });
    t.equal(res.statusCode, 200, JSON.stringify(services));
    t.strictSame(res.json().Services, []);
    const links = await api.store.db.selectFrom('message_template_services').selectAll().where('message_template_id', '=', res.json().Id).execute();
    t.strictSame(links, [], 'no links stored');
  }
});

t.test('Language left out stays absent; Sender left out stays absent', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const res = await api.call('POST', TEMPLATES, { body: valid });
  t.equal(res.statusCode, 200);
  t.notOk('Language' in res.json());
  t.notOk('Sender' in res.json());
  const row = await api.store.db.selectFrom('message_templates').selectAll().where('id', '=', res.json().Id).executeTakeFirstOrThrow();
  t.equal(row.language, null);
  t.equal(row.sender, null);
});

t.test('Language must be sv or en', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  t.equal((await api.call('POST', TEMPLATES, { body: { ...valid, Language: 'en' } })).json().Language, 'en');
  await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, Language: 'fr' } }, badRequest(['Enum', 'Language']));
});

t.test('the message type must exist', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, TypeId: 99 } }, badRequest(['NotFound', 'TypeId']));
  t.equal(status.Message, "'Type Id' 99 is not a known message type.");
});

t.test('the company must exist: a token or a superadmin naming no company is 400, nothing written', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: valid, company: UNKNOWN_COMPANY }, badRequest(['UnknownCompany', 'CompanyId']));
  t.equal(status.Message, `Company ${UNKNOWN_COMPANY} does not exist.`);
  await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, CompanyId: UNKNOWN_COMPANY }, as: [SUPERADMIN] }, { status: 400, code: 'UnknownCompany' });
});

t.test('Name, Title and Body are required', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  await expectRefused(t, api, 'POST', TEMPLATES, { body: { TypeId: EMAIL_TYPE } }, badRequest(['NotEmpty', 'Name'], ['NotEmpty', 'Title'], ['NotEmpty', 'Body']));
  await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, Name: '' } }, badRequest(['NotEmpty', 'Name']));
});

t.test('Name, Title and Body of whitespace only are empty', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const blank = { ...valid, Name: '  ', Title: '\t', Body: ' \n ' };
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: blank }, badRequest(['NotEmpty', 'Name'], ['NotEmpty', 'Title'], ['NotEmpty', 'Body']));
  t.equal(status.Message, "'Name' must not be empty.");
});

t.test("Body at most the type's MaxCharacters: exactly the limit is accepted, one more refused", async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const atLimit = await api.call('POST', TEMPLATES, { body: { ...valid, Body: 'x'.repeat(EMAIL_MAX) } });
  t.equal(atLimit.statusCode, 200);
  t.equal(atLimit.json().Body.length, EMAIL_MAX);
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, Body: 'x'.repeat(EMAIL_MAX + 1) } }, badRequest(['Length', 'Body']));
  t.equal(status.Message, `The length of 'Body' must be ${EMAIL_MAX} characters or fewer. You entered ${EMAIL_MAX + 1} characters.`);
  t.equal((await api.call('POST', TEMPLATES, { body: { ...valid, TypeId: SMS_TYPE, Body: 'y'.repeat(SMS_MAX) } })).statusCode, 200, 'SMS limit');
  await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, TypeId: SMS_TYPE, Body: 'y'.repeat(SMS_MAX + 1) } }, badRequest(['Length', 'Body']));
});

t.test('Sender cannot be set for an SMS type', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const withSender = { ...valid, TypeId: SMS_TYPE, Body: 'Hi', Sender: 'info@salon-a.example' };
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: withSender }, badRequest(['Empty', 'Sender']));
  t.equal(status.Message, "'Sender' cannot be set for SMS message types.");
  const ok = await api.call('POST', TEMPLATES, { body: { ...valid, TypeId: SMS_TYPE, Body: 'Hi' } });
  t.equal(ok.statusCode, 200, 'an SMS template without a sender');
  t.strictSame(ok.json().MessageType, { Id: SMS_TYPE, Name: 'SMS reminder', MaxCharacters: SMS_MAX, SendMethodId: 2 });
});

t.test('Sender of an e-mail type must be an e-mail address', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  for (const sender of ['not-an-address', 'a@b@c', 'two words@x.example']) {
    const status = await expectRefused(t, api, 'POST', TEMPLATES, { body: { ...valid, Sender: sender } }, badRequest(['Email', 'Sender']));
    t.equal(status.Message, "'Sender' is not a valid email address.");
  }
});

t.test('listed services must belong to the company', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const body = { ...valid, Services: [100, 200, 999] };
  const status = await expectRefused(t, api, 'POST', TEMPLATES, { body }, badRequest(['NotFound', 'Services[1]'], ['NotFound', 'Services[2]']));
  t.equal(status.Message, 'Service 200 does not exist in the company.');
});

t.test('every failure is listed at once', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const body = { ...valid, TypeId: SMS_TYPE, Name: ' ', Body: 'z'.repeat(SMS_MAX + 1), Sender: 'x@y.example', Services: [200] };
  await expectRefused(t, api, 'POST', TEMPLATES, { body }, badRequest(['NotEmpty', 'Name'], ['Length', 'Body'], ['Empty', 'Sender'], ['NotFound', 'Services[0]']));
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const unchanged = await snapshot(api.store);
  const refusals: Array<[string, CallOptions]> = [
    ['no token', { body: valid, as: null }],
    ['read role', { body: valid, as: [READ] }],
    ['no role', { body: valid, as: [] }],
    ['write role, another CompanyId', { body: { ...valid, CompanyId: COMPANY_B } }],
    ['unauthorized caller with an invalid body', { body: { ...valid, Body: '' }, as: [READ] }],
  ];
  for (const [name, call] of refusals) {
    expectRefusal(t, await api.call('POST', TEMPLATES, call), { status: 401, code: 'Unauthorized', name });
  }
  await unchanged.assert(t, 'refused calls changed nothing');

  t.equal((await api.call('POST', TEMPLATES, { body: valid, as: [SUPERADMIN] })).statusCode, 200, 'superadmin, own company');
  const other = await api.call('POST', TEMPLATES, { body: { ...valid, CompanyId: COMPANY_B, Services: [200] }, as: [SUPERADMIN] });
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.strictSame(other.json().Services, [{ Id: 200, Name: 'Spinning' }]);
  const row = await api.store.db.selectFrom('message_templates').select('company_id').where('id', '=', other.json().Id).executeTakeFirstOrThrow();
  t.equal(row.company_id, COMPANY_B);
  const foreign = await api.call('POST', TEMPLATES, { body: { ...valid, CompanyId: COMPANY_B, Services: [100] }, as: [SUPERADMIN] });
  t.equal(foreign.statusCode, 400, "company B cannot use company A's service");
});

t.test('CSV: a CSV request body and a CSV answer', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const csv = 'TypeId,Name,Title,Body,Language,Services\r\n1,Reminder,"Hi, there",Body text,en,"[100]"\r\n';
  const res = await api.call('POST', `${TEMPLATES}?format=csv`, { csv });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(res.headers['content-disposition'], 'attachment; filename="CreateMessageTemplate.csv"');
  const id = (await api.store.db.selectFrom('message_templates').select('id').where('name', '=', 'Reminder').executeTakeFirstOrThrow()).id;
  t.equal(
    res.body,
    'Id,Name,Title,Body,Sender,Default,MessageType,Language,Services\r\n' +
      `${id},Reminder,"Hi, there",Body text,,false,` +
      '"{Id:1,Name:Booking confirmation,Description:Sent when a booking is made,MaxCharacters:40,DefaultText:Welcome!,SendMethodId:1}",' +
      'en,"[{Id:100,Name:Haircut,ImageUrl:""https://img.example/haircut.png""}]"\r\n',
  );
});

t.test('a refused CSV body changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const csv = `TypeId,Name,Title,Body,Sender\r\n2,Sms,Title,Hi,info@salon-a.example\r\n`;
  await expectRefused(t, api, 'POST', TEMPLATES, { csv }, { status: 400, field: 'Sender' });
});
