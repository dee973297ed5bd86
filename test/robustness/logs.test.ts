import net from 'node:net';
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import t, { type Test } from 'tap';
import { mintToken } from '../../src/auth/token.js';
import { maskUrl } from '../../src/tracing/redaction.js';
import { loadDemoData } from '../../src/import/demo-data.js';
import { DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { TEST_SECRET, buildLoggedApp, rawExchange, token } from '../helper.js';

// No leaks: at the most verbose level, across successes, refusals, malformed requests and
// 500s, the logs never hold credentials, webhook secrets or the personal data of a request.

const BUYER_EMAIL = 'buyer.private@example.org';
const RECEIVER_EMAIL = 'receiver.private@example.org';
const LOOKUP_EMAIL = 'lookup.private@example.org';
const PERSONAL_NUMBER = '19870613-4321';
const DEMO_WEBHOOK_SECRET = 'whsec_c3R1ZGlvLW5vdmEtZGVtby1yZWJhdGVzLXNlY3JldA==';
const GIFT_CARD_SIGN = 'GIFT500';

/** Log lines as text, with any serialized Buffer ({type:'Buffer',data:[…]}) decoded so its bytes are searched too. */
function readable(logs: string): string {
  const decode = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(decode);
    if (value && typeof value === 'object') {
      const node = value as Record<string, unknown>;
      if (node.type === 'Buffer' && Array.isArray(node.data)) return Buffer.from(node.data as number[]).toString('latin1');
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, decode(v)]));
    }
    return value;
  };
  return logs
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.stringify(decode(JSON.parse(line))))
    .join('\n');
}

/** The app at the most verbose level on a fresh store of the engine under test, closed when the test ends. */
const tracedApp = (t: Test, logStream: Writable) => buildLoggedApp(t, logStream, { LOG_LEVEL: 'trace' });

t.test('the logs hold no credentials, secrets or personal data of requests', async (t) => {
  let logs = '';
  const logStream = new Writable({ write: (chunk, _encoding, done) => {
    logs += chunk.toString();
    done();
  } });
  const { app, store } = await tracedApp(t, logStream);
  await loadDemoData(store);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;

  const jwt = await token(DEMO_COMPANY_A);
  const signature = jwt.split('.')[2];
  const noRole = await mintToken(TEST_SECRET, { companyId: DEMO_COMPANY_A, roles: [] });
  const forged = `${jwt.slice(0, -6)}AAAAAA`;
  const auth = { authorization: `Bearer ${jwt}` };
  const webhookSecrets = (await store.db.selectFrom('webhook_endpoints').select('secret').execute()).map((r) => r.secret);
  t.ok(webhookSecrets.includes(DEMO_WEBHOOK_SECRET));

  const purchase = {
    ArticleId: 103,
    Customer: { Firstname: 'Private', Email: BUYER_EMAIL, PersonalIdentityNumber: PERSONAL_NUMBER, Phone: '+46700000001' },
    Receiver: { Firstname: 'Friend', Email: RECEIVER_EMAIL, ReceiverMessage: 'Happy birthday' },
  };
  const lookup = `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=${GIFT_CARD_SIGN}&ServiceId=101` +
    `&IncludeConnectedServices=true&IncludeConnectedCustomers=true&CustomerEmail=${encodeURIComponent(LOOKUP_EMAIL)}`;
  const calls: Array<[number, InjectOptions]> = [
    [200, { method: 'POST', url: '/rebatecodes/fromarticle', headers: auth, payload: purchase }],
    [400, { method: 'POST', url: '/rebatecodes/fromarticle', headers: auth, payload: { ...purchase, ArticleId: 0 } }],
    [400, { method: 'GET', url: lookup, headers: auth }],
    [200, { method: 'PUT', url: `/webhook/endpoints/wh_rebates?CompanyId=${DEMO_COMPANY_A}`, headers: auth, payload: { Url: 'https://93.184.215.14/hook', EventTypes: ['rebatecode.created'] } }],
    [400, { method: 'PUT', url: `/webhook/endpoints/wh_bookings?CompanyId=${DEMO_COMPANY_A}`, headers: auth, payload: { Url: 'http://127.0.0.1/admin', EventTypes: ['x'] } }],
    [401, { method: 'GET', url: '/billing/methods', headers: { authorization: `Bearer ${forged}` } }],
    [401, { method: 'POST', url: '/rebatecodes/transactions', headers: { authorization: `Bearer ${noRole}` }, payload: { RebateCodeId: 101, Amount: 1, Usage: 0, ChangeType: 'Increase' } }],
    [403, { method: 'POST', url: '/resourcetypes', headers: { authorization: `Bearer ${noRole}` }, payload: { Name: BUYER_EMAIL } }],
    // The same lookup by ServiceStack's predefined route, its names in other cases.
    [400, { method: 'GET', url: `/api/GetRebateCodeBySign${lookup.slice(lookup.indexOf('?')).replace(/([?&])([^=]+)/g, (_, sep, name) => sep + name.toLowerCase())}`, headers: auth }],
  ];
  for (const [expected, request] of calls) {
    const res = await app.inject(request);
    t.equal(res.statusCode, expected, `${request.method} ${request.url}`);
  }
  t.match((await app.inject(calls[3][1])).body, DEMO_WEBHOOK_SECRET, 'the answer does carry the secret');

  // Malformed requests: Node hands Fastify the raw bytes read so far, headers and body.
  const head = `POST /rebatecodes/fromarticle HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${jwt}\r\n`;
  const body = JSON.stringify(purchase);
  t.match(await rawExchange(port, `${head}Content-Length: ${body.length}\r\nBad Header\r\n\r\n${body}`), /^HTTP\/1\.1 400/);
  t.match(await rawExchange(port, `${head}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`), /^HTTP\/1\.1 400/);

  // Unexpected failures (500), with personal data in the body and in the query.
  await store.db.schema.dropTable('rebate_code_services').execute();
  t.equal((await app.inject(calls[0][1])).statusCode, 500);
  t.equal((await app.inject({ method: 'GET', url: lookup, headers: auth })).statusCode, 500);

  const text = readable(logs);
  t.match(text, /"msg":"incoming request"/, 'requests were logged');
  const lines = text.split('\n');
  const failure = (operation: string) =>
    lines.find((line) => line.includes('"msg":"unexpected error"') && line.includes(`"operation":"${operation}"`));
  t.ok(failure('CreateArticleRebateCode'), 'the 500s were logged with their context');
  t.match(failure('GetRebateCodeBySign'), /"url":"[^"]*CustomerEmail=\[redacted\]/, 'the failed lookup\'s URL, masked');
  t.match(text, /"msg":"client error"/, 'the malformed requests were logged (trace)');
  t.match(text, /CustomerEmail=\[redacted\]/, 'the lookup URL was logged, masked');

  t.notOk(text.includes(jwt), 'no bearer token');
  t.notOk(text.includes(forged.split('.')[2]), 'no forged token');
  const leakedSignature = Array.from({ length: signature.length - 11 }, (_, i) => signature.slice(i, i + 12)).filter((part) => text.includes(part));
  t.same(leakedSignature, [], 'no part of the JWT signature');
  for (const secret of webhookSecrets) t.notOk(text.includes(secret), `no webhook secret ${secret.slice(0, 8)}…`);
  t.notOk(/whsec_/.test(text), 'nothing that looks like a webhook secret');
  for (const email of [BUYER_EMAIL, RECEIVER_EMAIL, LOOKUP_EMAIL, 'anna.svensson@example.com']) {
    t.notOk(text.toLowerCase().includes(email), `no e-mail address ${email}`);
  }
  t.notOk(text.includes(encodeURIComponent(LOOKUP_EMAIL)), 'not even URL-encoded');
  t.notOk(text.includes(PERSONAL_NUMBER) || text.includes(PERSONAL_NUMBER.replace('-', '')), 'no personal identity number');
  t.notOk(text.includes(GIFT_CARD_SIGN), 'no gift card sign');
});

t.test('maskUrl keeps the path and the declared parameter names, never a value', async (t) => {
  t.equal(maskUrl('/categories'), '/categories');
  t.equal(maskUrl('/categories?Take=5&Skip=0'), '/categories?Take=[redacted]&Skip=[redacted]');
  t.equal(
    maskUrl('/rebatecodes/getbysign?CompanyId=x&RebateCodeSign=GIFT&customeremail=a%40b.se&ServiceId=1'),
    '/rebatecodes/getbysign?CompanyId=[redacted]&RebateCodeSign=[redacted]&CustomerEmail=[redacted]&ServiceId=[redacted]',
  );
  t.equal(maskUrl('/x?Customer%45mail=a%40b.se&bad=%E0%A4%A'), '/x?CustomerEmail=[redacted]', 'encoded names are recognised');
  t.equal(maskUrl('/x?access_token=abc&flag'), '/x', 'undeclared names are left out whole');
  t.equal(maskUrl('/categories?Meta[a]=secret'), '/categories?Meta=[redacted]');
  t.equal(
    maskUrl('/tags/_?id=10&FORCE=true&rebatecodeid=5&Secret=whsec_x'),
    '/tags/_?Id=[redacted]&Force=[redacted]&RebateCodeId=[redacted]',
    'path parameters and body fields sent in the query string are named too, in the contract\'s spelling',
  );
});

t.test('a token sent under any query parameter name is never logged', async (t) => {
  let logs = '';
  const logStream = new Writable({ write: (chunk, _encoding, done) => {
    logs += chunk.toString();
    done();
  } });
  const { app } = await tracedApp(t, logStream);
  const jwt = await token(DEMO_COMPANY_A);
  const names = ['jwt', 'auth', 'Authorization', 'bearer', 'apikey', 'api_key', 'key', 'sig', 'code', 'session', 'Take', 'format', jwt];
  for (const name of names) {
    for (const url of [`/categories?${name}=${jwt}`, `/billing/methods?${name}=${jwt}`, `/no/such/path?${name}=${jwt}`]) {
      const res = await app.inject({ method: 'GET', url });
      t.ok(res.statusCode < 500, `${url.slice(0, 30)} answered ${res.statusCode}`);
    }
  }
  t.match(logs, /"msg":"incoming request"/, 'requests were logged');
  t.notOk(logs.includes(jwt.split('.')[2]), 'no token signature in the logs');
  t.notOk(logs.includes(jwt.split('.')[1]), 'no token payload in the logs');
});
