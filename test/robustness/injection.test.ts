import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TABLE_NAMES } from '../../src/store/schema.js';
import { buildTestApp, SUPERADMIN, type CallOptions, type Method } from '../helper.js';
import { rowCounts } from '../store/store-helper.js';

// SQL injection through every kind of input: query parameters that shape SQL (OrderBy,
// OrderByDesc, Fields), filters (CountryId, RebateCodeSign), path Ids, and string body
// fields. Each answers 400 or a normal answer (never 500, never "everything"), the tables
// stay intact, and a plain string field stores the payload verbatim.

const PAYLOADS = [
  "'; drop table tags; --",
  '1 or 1=1',
  "' or '1'='1",
  'name desc--',
  'Id; delete from categories',
  '") union select name, sql from sqlite_master --',
  "1) union select 1,2,3,4 from companies where ('a'='a",
  '\u2019 or \u20181\u2019=\u20181', // ’ or ‘1’=‘1
  '\uff07; drop table customers; --', // fullwidth apostrophe
  '\u02bc or 1=1 --', // modifier letter apostrophe
  '%27%20or%201%3D1',
  '\\\'; drop table printouts; --',
];
const q = encodeURIComponent;

t.test('SQL-injection payloads answer 400 or a normal answer, change nothing unasked, and are stored verbatim', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: DEMO_COMPANY_A });
  const admin = { as: [SUPERADMIN] };
  const before = await rowCounts(api.store);
  const statuses = new Map<string, number>();
  /** api.call as company A's write administrator (or `who`), counting the statuses and failing on a 5xx. */
  const call = async (method: Method, url: string, body?: object, who: CallOptions = {}) => {
    const res = await api.call(method, url, { ...who, body });
    statuses.set(`${res.statusCode}`, (statuses.get(`${res.statusCode}`) ?? 0) + 1);
    if (res.statusCode >= 500) t.fail(`${method} ${url} → ${res.statusCode}: ${res.body}`);
    return res;
  };
  const created = { templates: 0, types: 0, codes: 0 };

  for (const p of PAYLOADS) {
    for (const path of ['/categories', '/billing/methods', '/reports/booking/printout']) {
      for (const parameter of ['OrderBy', 'OrderByDesc']) {
        const res = await call('GET', `${path}?${parameter}=${q(p)}`);
        t.equal(res.statusCode, 400, `${path} ${parameter}=${p}`);
        t.equal(res.json().ResponseStatus.ErrorCode, 'InvalidOrderBy');
      }
      const fields = await call('GET', `${path}?Fields=${q(p)}&Meta[note]=${q(p)}`);
      t.equal(fields.statusCode, 200, `${path} Fields=${p}`);
      t.equal(fields.json().Meta?.note, p, 'Meta echoes the text as given');
    }
    const country = await call('GET', `/billing/methods?CountryId=${q(p)}`);
    t.ok(country.statusCode === 400 || country.json().Total === 0, `CountryId=${p} matches nothing`);
    const sign = await call('GET', `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${q(p)}&ServiceId=101&IncludeConnectedServices=false`);
    t.equal(sign.statusCode, 404, `RebateCodeSign=${p} finds no code`);
    t.equal((await call('GET', `/categories?Id=${q(p)}`)).statusCode, 400);
    // A superadmin may name any company, so the value itself is judged: not a uuid.
    t.equal((await call('GET', `/assistant/mcp/usage?CompanyId=${q(p)}`, undefined, admin)).statusCode, 400, 'CompanyId is a uuid');
    for (const path of ['/tags', '/resource', '/customfields']) {
      t.equal((await call('DELETE', `${path}/${q(p)}`)).statusCode, 400, `DELETE ${path}/${p}`);
    }
    const hook = await call('PUT', `/webhook/endpoints/${q(p)}?CompanyId=${DEMO_COMPANY_A}`, { Url: 'https://93.184.215.14/h', EventTypes: ['x'] });
    t.equal(hook.statusCode, 404, `webhook Id ${p} finds nothing`);

    // Plain string fields: stored and answered exactly as sent.
    const template = await call('POST', '/messages/templates', { TypeId: 1, Name: p, Title: p, Body: p, Language: 'en' });
    t.equal(template.statusCode, 200);
    created.templates++;
    const row = await api.store.db.selectFrom('message_templates').selectAll().where('id', '=', template.json().Id).executeTakeFirstOrThrow();
    t.same([row.name, row.title, row.body], [p, p, p], `template stored verbatim: ${p}`);
    t.equal(template.json().Name, p);

    const type = await call('POST', '/resourcetypes', { Name: p, Description: p, Resources: [{ Id: 101 }] });
    t.equal(type.statusCode, 200);
    created.types++;
    t.match(type.json(), { Name: p, Description: p });

    const webhook = await call('PUT', `/webhook/endpoints/wh_bookings?CompanyId=${DEMO_COMPANY_A}`, { Url: 'https://93.184.215.14/h', EventTypes: ['booking.created'], Description: p });
    t.equal(webhook.statusCode, 200);
    t.match(webhook.json(), { Description: p });
    // Event types are only the names the contract's WebhookEventType lists.
    const event = await call('PUT', `/webhook/endpoints/wh_bookings?CompanyId=${DEMO_COMPANY_A}`, { Url: 'https://93.184.215.14/h', EventTypes: [p] });
    t.equal(event.statusCode, 400, `EventTypes [${p}] is refused`);

    const code = await call('POST', '/rebatecodes/fromarticle', {
      ArticleId: 103,
      Customer: { Firstname: p, Lastname: p, Email: `buyer${created.codes}@example.org` },
      Receiver: { Firstname: p, ReceiverMessage: p },
    });
    t.equal(code.statusCode, 200);
    created.codes++;
    const buyer = await api.store.db.selectFrom('customers').select(['firstname', 'lastname']).where('email', '=', `buyer${created.codes - 1}@example.org`).executeTakeFirstOrThrow();
    t.same([buyer.firstname, buyer.lastname], [p, p], 'customer name stored verbatim');
  }

  // A superadmin's body CompanyId and a CSV body carry the payload the same way.
  t.equal((await call('POST', '/resourcetypes', { CompanyId: PAYLOADS[0], Name: 'x' }, admin)).statusCode, 400);
  const csv = await api.call('POST', '/resourcetypes', {
    csv: `Name,Description\r\n"${PAYLOADS[0]}","a ""quoted"" ${PAYLOADS[5].replace(/"/g, '""')}"\r\n`,
  });
  t.equal(csv.statusCode, 200);
  created.types++;
  t.match(csv.json(), { Name: PAYLOADS[0], Description: `a "quoted" ${PAYLOADS[5]}` });

  const after = await rowCounts(api.store);
  t.equal(Object.keys(after).length, TABLE_NAMES.length, 'every table is still there');
  const grew: Record<string, number> = {
    message_templates: created.templates,
    resource_types: created.types,
    resource_type_resources: PAYLOADS.length,
    rebate_codes: created.codes,
    customers: created.codes,
    rebate_code_customers: created.codes,
    rebate_code_services: created.codes * 3, // article 103 has three services
  };
  for (const table of TABLE_NAMES) {
    t.equal(after[table], before[table] + (grew[table] ?? 0), `${table}: ${before[table]} → ${after[table]}`);
  }
  t.notOk(statuses.has('500'), `statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
});
