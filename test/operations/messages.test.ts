import t, { type Test } from 'tap';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { EMAIL_MAX, EMAIL_TYPE, SMS_MAX, SMS_TYPE, messageData } from '../fixtures/messages.js';
import { READ, SUPERADMIN, WRITE, bearer, buildTestApp, type TestApp } from '../helper.js';

// CreateMessageTemplate (POST /messages/templates): every rule is checked before the one
// write transaction; the answer is the template with its MessageType and Services.

const TABLES = ['message_templates', 'message_template_services'] as const;

async function snapshot(api: TestApp) {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) out[table] = await api.store.db.selectFrom(table).selectAll().execute();
  return out;
}

const post = async (api: TestApp, payload: unknown, roles: string[] = [WRITE], company = COMPANY_A) =>
  api.inject({ method: 'POST', url: '/messages/templates', headers: await bearer(company, roles), payload: payload as object });

const EMAIL_MESSAGE_TYPE = {
  Id: EMAIL_TYPE,
  Name: 'Booking confirmation',
  Description: 'Sent when a booking is made',
  MaxCharacters: EMAIL_MAX,
  DefaultText: 'Welcome!',
  SendMethodId: 1,
};
const valid = { TypeId: EMAIL_TYPE, Name: 'Confirmation', Title: 'Your booking', Body: 'See you soon' };

/** Expects a 400 whose listed errors are exactly `errors` (code, field), first one on top; nothing written. */
async function refused(t: Test, api: TestApp, payload: unknown, errors: Array<[string, string]>, company = COMPANY_A) {
  const before = await snapshot(api);
  const res = await post(api, payload, [WRITE], company);
  t.equal(res.statusCode, 400);
  const status = res.json().ResponseStatus;
  t.strictSame(status.Errors.map((e: any) => [e.ErrorCode, e.FieldName]), errors);
  t.equal(status.ErrorCode, errors[0][0]);
  t.equal(status.Message, status.Errors[0].Message);
  t.strictSame(await snapshot(api), before, 'nothing written');
  return status;
}

t.test('creates an e-mail template with sender, language and services', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const res = await post(api, { ...valid, Sender: ' info@salon-a.example ', Language: 'sv', Services: [101, 100, 101] });
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
    const res = await post(api, { ...valid, ...services });
    t.equal(res.statusCode, 200, JSON.stringify(services));
    t.strictSame(res.json().Services, []);
    const links = await api.store.db.selectFrom('message_template_services').selectAll().where('message_template_id', '=', res.json().Id).execute();
    t.strictSame(links, [], 'no links stored');
  }
});

t.test('Language left out stays absent; Sender left out stays absent', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const res = await post(api, valid);
  t.equal(res.statusCode, 200);
  t.notOk('Language' in res.json());
  t.notOk('Sender' in res.json());
  const row = await api.store.db.selectFrom('message_templates').selectAll().where('id', '=', res.json().Id).executeTakeFirstOrThrow();
  t.equal(row.language, null);
  t.equal(row.sender, null);
});

t.test('Language must be sv or en', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  t.equal((await post(api, { ...valid, Language: 'en' })).json().Language, 'en');
  await refused(t, api, { ...valid, Language: 'fr' }, [['Enum', 'Language']]);
});

t.test('the message type must exist', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await refused(t, api, { ...valid, TypeId: 99 }, [['NotFound', 'TypeId']]);
  t.equal(status.Message, "'Type Id' 99 is not a known message type.");
});

t.test('the company must exist: a token or a superadmin naming no company is 400, nothing written', async (t) => {
  const unknown = '00000000-0000-4000-8000-0000000000ff';
  const api = await buildTestApp(t, { data: messageData });
  const status = await refused(t, api, valid, [['UnknownCompany', 'CompanyId']], unknown);
  t.equal(status.Message, `Company ${unknown} does not exist.`);
  const before = await snapshot(api);
  const named = await post(api, { ...valid, CompanyId: unknown }, [SUPERADMIN]);
  t.equal(named.statusCode, 400);
  t.equal(named.json().ResponseStatus.ErrorCode, 'UnknownCompany');
  t.strictSame(await snapshot(api), before);
});

t.test('Name, Title and Body are required', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  await refused(t, api, { TypeId: EMAIL_TYPE }, [['NotEmpty', 'Name'], ['NotEmpty', 'Title'], ['NotEmpty', 'Body']]);
  await refused(t, api, { ...valid, Name: '' }, [['NotEmpty', 'Name']]);
});

t.test('Name, Title and Body of whitespace only are empty', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await refused(t, api, { ...valid, Name: '  ', Title: '\t', Body: ' \n ' }, [
    ['NotEmpty', 'Name'],
    ['NotEmpty', 'Title'],
    ['NotEmpty', 'Body'],
  ]);
  t.equal(status.Message, "'Name' must not be empty.");
});

t.test("Body at most the type's MaxCharacters: exactly the limit is accepted, one more refused", async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const atLimit = await post(api, { ...valid, Body: 'x'.repeat(EMAIL_MAX) });
  t.equal(atLimit.statusCode, 200);
  t.equal(atLimit.json().Body.length, EMAIL_MAX);
  const status = await refused(t, api, { ...valid, Body: 'x'.repeat(EMAIL_MAX + 1) }, [['Length', 'Body']]);
  t.equal(status.Message, `The length of 'Body' must be ${EMAIL_MAX} characters or fewer. You entered ${EMAIL_MAX + 1} characters.`);
  t.equal((await post(api, { ...valid, TypeId: SMS_TYPE, Body: 'y'.repeat(SMS_MAX) })).statusCode, 200, 'SMS limit');
  await refused(t, api, { ...valid, TypeId: SMS_TYPE, Body: 'y'.repeat(SMS_MAX + 1) }, [['Length', 'Body']]);
});

t.test('Sender cannot be set for an SMS type', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await refused(t, api, { ...valid, TypeId: SMS_TYPE, Body: 'Hi', Sender: 'info@salon-a.example' }, [['Empty', 'Sender']]);
  t.equal(status.Message, "'Sender' cannot be set for SMS message types.");
  const ok = await post(api, { ...valid, TypeId: SMS_TYPE, Body: 'Hi' });
  t.equal(ok.statusCode, 200, 'an SMS template without a sender');
  t.strictSame(ok.json().MessageType, { Id: SMS_TYPE, Name: 'SMS reminder', MaxCharacters: SMS_MAX, SendMethodId: 2 });
});

t.test('Sender of an e-mail type must be an e-mail address', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  for (const sender of ['not-an-address', 'a@b@c', 'two words@x.example']) {
    const status = await refused(t, api, { ...valid, Sender: sender }, [['Email', 'Sender']]);
    t.equal(status.Message, "'Sender' is not a valid email address.");
  }
});

t.test('listed services must belong to the company', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const status = await refused(t, api, { ...valid, Services: [100, 200, 999] }, [['NotFound', 'Services[1]'], ['NotFound', 'Services[2]']]);
  t.equal(status.Message, 'Service 200 does not exist in the company.');
});

t.test('every failure is listed at once', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  await refused(t, api, { ...valid, TypeId: SMS_TYPE, Name: ' ', Body: 'z'.repeat(SMS_MAX + 1), Sender: 'x@y.example', Services: [200] }, [
    ['NotEmpty', 'Name'],
    ['Length', 'Body'],
    ['Empty', 'Sender'],
    ['NotFound', 'Services[0]'],
  ]);
});

t.test('auth matrix', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const before = await snapshot(api);
  const deny = (name: string, res: Awaited<ReturnType<typeof post>>) => {
    t.equal(res.statusCode, 401, name);
    t.equal(res.json().ResponseStatus.ErrorCode, 'Unauthorized', name);
  };
  deny('no token', await api.inject({ method: 'POST', url: '/messages/templates', payload: valid }));
  deny('read role', await post(api, valid, [READ]));
  deny('no role', await post(api, valid, []));
  deny('write role, another CompanyId', await post(api, { ...valid, CompanyId: COMPANY_B }));
  deny('unauthorized caller with an invalid body', await post(api, { ...valid, Body: '' }, [READ]));
  t.strictSame(await snapshot(api), before, 'refused calls changed nothing');

  t.equal((await post(api, valid, [SUPERADMIN])).statusCode, 200, 'superadmin, own company');
  const other = await post(api, { ...valid, CompanyId: COMPANY_B, Services: [200] }, [SUPERADMIN]);
  t.equal(other.statusCode, 200, 'superadmin, another company');
  t.strictSame(other.json().Services, [{ Id: 200, Name: 'Spinning' }]);
  const row = await api.store.db.selectFrom('message_templates').select('company_id').where('id', '=', other.json().Id).executeTakeFirstOrThrow();
  t.equal(row.company_id, COMPANY_B);
  const foreign = await post(api, { ...valid, CompanyId: COMPANY_B, Services: [100] }, [SUPERADMIN]);
  t.equal(foreign.statusCode, 400, "company B cannot use company A's service");
});

t.test('CSV: a CSV request body and a CSV answer', async (t) => {
  const api = await buildTestApp(t, { data: messageData });
  const res = await api.inject({
    method: 'POST',
    url: '/messages/templates?format=csv',
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: 'TypeId,Name,Title,Body,Language,Services\r\n1,Reminder,"Hi, there",Body text,en,"[100]"\r\n',
  });
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
  const before = await snapshot(api);
  const res = await api.inject({
    method: 'POST',
    url: '/messages/templates',
    headers: { ...(await bearer(COMPANY_A)), 'content-type': 'text/csv' },
    payload: `TypeId,Name,Title,Body,Sender\r\n2,Sms,Title,Hi,info@salon-a.example\r\n`,
  });
  t.equal(res.statusCode, 400);
  t.equal(res.json().ResponseStatus.Errors[0].FieldName, 'Sender');
  t.strictSame(await snapshot(api), before);
});
