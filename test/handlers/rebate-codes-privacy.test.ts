import { parse } from 'csv-parse/sync';
import t from 'tap';
import { rebateCodeAudience } from '../../src/domain/rebate-code-privacy.js';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { PRIVATE_A, PRIVATE_B, rebateData } from '../fixtures/rebate-codes.js';
import { READ, SUPERADMIN, WRITE, buildTestApp, expectRefusal, type CallOptions } from '../helper.js';

// GetRebateCodeBySign answers any authenticated caller (x-any-company); only the code's own
// administrators and superadmins may see who bought, paid with or handled it.

const setup = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { data: rebateData });

/** The fixture's shape, as far as the private data goes (its rows are loosely typed). */
interface FixtureCode {
  CompanyId: string;
  RebateCodeSign: string;
  ArticleId?: number;
  CustomerIds?: string[];
  PersonalNote?: string;
  CreatedBy?: string;
  UpdatedBy?: string;
  Receiver?: { Email?: string };
  PaymentLog?: { Comments?: string }[];
  Transactions?: { Note?: string }[];
}
const codes = rebateData.RebateCodes as unknown as FixtureCode[];
const fixtureCode = (sign: string) => codes.find((c) => c.RebateCodeSign === sign)!;

/**
 * Everything personal the fixture ties to a code: every e-mail and phone of its company's
 * customers (connected or not), and its own note, staff, receiver, payment comments,
 * transaction notes and article's NotificationEmail.
 */
function secretsOf(sign: string): string[] {
  const code = fixtureCode(sign);
  const customers = rebateData.Customers.filter((c) => c.CompanyId === code.CompanyId) as { Email?: string; Phone?: string }[];
  const article = rebateData.Articles.find((a) => a.CompanyId === code.CompanyId && a.Id === code.ArticleId) as { NotificationEmail?: string } | undefined;
  return [
    ...customers.flatMap((c) => [c.Email, c.Phone]),
    code.PersonalNote, code.CreatedBy, code.UpdatedBy, code.Receiver?.Email, article?.NotificationEmail,
    ...(code.PaymentLog ?? []).map((p) => p.Comments),
    ...(code.Transactions ?? []).map((tr) => tr.Note),
  ].filter((s): s is string => typeof s === 'string' && s !== '');
}
/** The secrets found anywhere in an answer's text, regardless of case. */
const leaked = (body: string, secrets: string[]) => secrets.filter((s) => body.toLowerCase().includes(s.toLowerCase()));

/** A connected customer's e-mail, so the rules pass and the answer is 200. */
const connectedEmail = (sign: string) => rebateData.Customers.find((c) => c.Id === fixtureCode(sign).CustomerIds![0])!.Email;

const PRIVATE_FIELDS = ['Customers', 'Transactions', 'PaymentLog', 'PersonalNote', 'CreatedBy', 'UpdatedBy'];

/** The lookup of `sign` in its own company, with everything included, naming a connected customer. */
function lookup(sign: string, extra: Record<string, string> = {}) {
  const code = fixtureCode(sign);
  const query = new URLSearchParams({
    CompanyId: code.CompanyId, RebateCodeSign: sign, ServiceId: code.CompanyId === COMPANY_A ? '100' : '200',
    IncludeConnectedServices: 'true', IncludeConnectedDaysOfWeek: 'true', IncludeConnectedCustomers: 'true',
    CustomerEmail: connectedEmail(sign), ...extra,
  });
  return `/rebatecodes/getbysign?${query}`;
}

/** Callers that are not administrators of the code's company. */
const outsiders: [string, string, CallOptions][] = [
  [PRIVATE_A, "company B's write administrator", { as: [WRITE], company: COMPANY_B }],
  [PRIVATE_A, "company B's read administrator", { as: [READ], company: COMPANY_B }],
  [PRIVATE_A, 'a role-less user of company A itself', { as: [], company: COMPANY_A }],
  [PRIVATE_A, 'a role-less user of company B', { as: [], company: COMPANY_B }],
  [PRIVATE_B, "company A's write administrator", { as: [WRITE], company: COMPANY_A }],
  [PRIVATE_B, "company A's read administrator", { as: [READ], company: COMPANY_A }],
  [PRIVATE_B, 'a role-less user of company B itself', { as: [], company: COMPANY_B }],
];

t.test('the fixture codes hold the private data the public view must leave out', async (t) => {
  for (const sign of [PRIVATE_A, PRIVATE_B]) {
    const code = fixtureCode(sign);
    t.ok(code.PersonalNote && code.CreatedBy && code.UpdatedBy && code.PaymentLog?.length && code.Transactions?.length && code.CustomerIds?.length, sign);
    t.ok(secretsOf(sign).length >= 8, `${sign}: secrets to look for`);
  }
});

for (const [sign, who, caller] of outsiders) {
  t.test(`${who} checking ${sign} gets the public view, in JSON and CSV, whatever it includes`, async (t) => {
    const api = await setup(t);
    const secrets = secretsOf(sign);
    const res = await api.call('GET', lookup(sign), caller);
    t.equal(res.statusCode, 200);
    t.same(leaked(res.body, secrets), [], 'no personal data anywhere in the JSON');
    const body = res.json();
    for (const field of PRIVATE_FIELDS) t.notOk(field in body, `no ${field}`);
    t.ok(body.Article, 'the article is shown');
    t.notOk('NotificationEmail' in body.Article, "no article's NotificationEmail");
    t.match(body, { RebateCodeSign: sign, CompanyId: fixtureCode(sign).CompanyId, ActiveByStatus: true, Company: {} }, 'the public facts remain');

    const csv = await api.call('GET', lookup(sign, { format: 'csv' }), caller);
    t.equal(csv.statusCode, 200);
    t.same(leaked(csv.body, secrets), [], 'no personal data anywhere in the CSV');
    const [row] = parse(csv.body, { columns: true }) as Record<string, string>[];
    for (const field of PRIVATE_FIELDS) t.equal(row[field] ?? '', '', `CSV ${field} is empty`);

    // A refused check explains the rule, never with the company's data.
    for (const extra of [{ CustomerEmail: 'stranger@example.com' }, { CustomerEmail: '' }]) {
      const refused = await api.call('GET', lookup(sign, extra), caller);
      expectRefusal(t, refused, { status: 400, code: 'RebateCodeCustomerNotConnected' });
      t.same(leaked(refused.body, secrets), [], `no personal data in the 400 (CustomerEmail '${extra.CustomerEmail}')`);
    }
  });
}

const administrators: [string, CallOptions][] = [
  ["company A's write administrator", { as: [WRITE], company: COMPANY_A }],
  ["company A's read administrator", { as: [READ], company: COMPANY_A }],
  ['a superadmin of another company', { as: [SUPERADMIN], company: COMPANY_B }],
];

for (const [who, caller] of administrators) {
  t.test(`${who} sees the whole record of ${PRIVATE_A}`, async (t) => {
    const api = await setup(t);
    const res = await api.call('GET', lookup(PRIVATE_A), caller);
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.match(body, {
      PersonalNote: fixtureCode(PRIVATE_A).PersonalNote, CreatedBy: 'kim@salon-a.example', UpdatedBy: 'lo@salon-a.example',
      Article: { Id: 8, NotificationEmail: 'orders@salon-a.example' },
    });
    t.same(body.Customers.map((c: { Email: string }) => c.Email), ['Anna.Berg@example.com', 'Dana.Holm@example.org']);
    t.same(body.Transactions.map((tr: { Customer: { Email: string; Phone?: string } }) => tr.Customer), [
      { Id: body.Customers[0].Id, Firstname: 'Anna', Lastname: 'Berg', Email: 'Anna.Berg@example.com', Phone: '0701111111' },
      { Id: body.Customers[1].Id, Firstname: 'Dana', Lastname: 'Holm', Email: 'Dana.Holm@example.org', Phone: '+46703333333' },
    ]);
    t.equal(body.PaymentLog.length, 1);
    t.ok(leaked(res.body, secretsOf(PRIVATE_A)).length > 0, 'the scan finds what an administrator may see');
    const csv = await api.call('GET', lookup(PRIVATE_A, { format: 'csv' }), caller);
    t.ok(leaked(csv.body, secretsOf(PRIVATE_A)).includes('Dana.Holm@example.org'), 'and finds it in CSV');
  });
}

t.test('an Include flag false still leaves Customers out for an administrator', async (t) => {
  const api = await setup(t);
  const body = (await api.call('GET', lookup(PRIVATE_A, { IncludeConnectedCustomers: 'false' }), { as: [READ] })).json();
  t.notOk('Customers' in body);
  t.equal(body.Transactions.length, 2);
});

t.test('the audience: administrators of the code\'s own company and superadmins only', async (t) => {
  const caller = (companyId: string | undefined, roles: string[]) => ({ companyId, roles: new Set(roles) });
  t.equal(rebateCodeAudience(undefined, COMPANY_A), 'public', 'nobody');
  t.equal(rebateCodeAudience(caller(COMPANY_A, [WRITE]), COMPANY_A.toUpperCase()), 'administrator', 'guids compare regardless of case');
  t.equal(rebateCodeAudience(caller(COMPANY_A, [READ]), COMPANY_A), 'administrator');
  t.equal(rebateCodeAudience(caller(COMPANY_B, [WRITE, READ]), COMPANY_A), 'public', 'another company');
  t.equal(rebateCodeAudience(caller(undefined, [WRITE]), COMPANY_A), 'public', 'no company in the token');
  t.equal(rebateCodeAudience(caller(COMPANY_A, ['some-other-role']), COMPANY_A), 'public', 'no administrator role');
  t.equal(rebateCodeAudience(caller(undefined, [SUPERADMIN]), COMPANY_A), 'administrator', 'superadmin, any company');
});
