import type { LightMyRequestResponse } from 'fastify';
import { sql, type RawBuilder } from 'kysely';
import t, { type Test } from 'tap';
import { contract, deref } from '../contract-operations.js';
import { COMPANY_A, COMPANY_B } from '../fixtures.js';
import { ANNA, rebateData } from '../fixtures/rebate-codes.js';
import {
  READ,
  SUPERADMIN,
  bearer,
  buildTestApp,
  expectRefusal,
  snapshot,
  testConfig,
  type CallOptions,
  type Method,
  type TestApp,
} from '../helper.js';
import { METRICS_TOKEN, sample, scrape } from '../metrics/exposition.js';
import { insertMcpGrant } from '../../src/store/repositories/mcp-grants.js';
import { storeState, type StoreState } from '../snapshot.js';
import { EVENT_TYPES } from '../webhooks/setup.js';

// Retried writes over HTTP (docs/decisions.md, "Retried writes"; product decision 10, the
// Idempotency-Key header): which values a key may take, what makes two requests the same
// request, what is stored and replayed, what is never stored, expiry, the required mode and
// the metric. Many copies at once and crashes are test/robustness/idempotency.test.ts's.

const TRANSACTIONS = '/rebatecodes/transactions';
const TEMPLATES = '/messages/templates';
const RESOURCE_TYPES = '/resourcetypes';
const POS = `/webhook/endpoints/pos?CompanyId=${COMPANY_A}`;
const REPLAYED = 'idempotent-replayed';

/**
 * The rebate code test data, with what the other writes need: a message type, three
 * resources of company A (300 is booked, so deleting it is refused with 409), custom fields,
 * a webhook endpoint `pos` to update, and one endpoint per company subscribed to every event
 * of the catalogue, so each write that runs records exactly one event (deliveries are off in
 * tests: the outbox is written, nothing is sent).
 */
const data = {
  ...rebateData,
  MessageTypes: [{ Id: 1, Name: 'Confirmation', Description: 'After a booking', MaxCharacters: 1000, SendMethodId: 1 }],
  Resources: [
    { CompanyId: COMPANY_A, Id: 300, Name: 'Chair 1', Active: true, Created: '2026-01-01T08:00:00.000Z' },
    { CompanyId: COMPANY_A, Id: 301, Name: 'Chair 2', Active: true, Created: '2026-01-01T08:00:00.000Z' },
    { CompanyId: COMPANY_A, Id: 302, Name: 'Chair 3', Active: true, Created: '2026-01-01T08:00:00.000Z' },
  ],
  Bookings: [
    ...rebateData.Bookings,
    {
      CompanyId: COMPANY_A, Id: 501, ServiceId: 100, From: '2026-07-01T10:00:00.000Z', To: '2026-07-01T11:00:00.000Z',
      StatusId: 1, CustomerId: ANNA, ResourceIds: [300],
    },
  ],
  CustomFields: [
    { CompanyId: COMPANY_A, Id: 50, FieldId: 7, Name: 'Allergies' },
    { CompanyId: COMPANY_A, Id: 51, FieldId: 8, Name: 'Notes' },
  ],
  WebhookEndpoints: [
    { CompanyId: COMPANY_A, Id: 'events-a', Url: 'https://hooks.example.org/a', EventTypes: [...EVENT_TYPES] },
    { CompanyId: COMPANY_B, Id: 'events-b', Url: 'https://hooks.example.org/b', EventTypes: [...EVENT_TYPES] },
    { CompanyId: COMPANY_A, Id: 'pos', Url: 'https://old.example.org/hooks', EventTypes: ['booking.created'] },
  ],
};

/** The data, and a grant of company A to revoke (grants are made by signing in, never imported). */
async function setup(t: Test, config: Record<string, unknown> = {}): Promise<TestApp> {
  const api = await buildTestApp(t, { data, config });
  const now = Date.now();
  await insertMcpGrant(api.store.db, {
    grantId: 'grant-a', companyId: COMPANY_A, sub: 'ada', clientId: 'client-a', clientOrigin: 'assistant.example', clientName: null,
    scopes: ['booking.read'], roles: [READ], createdAt: now, expiresAt: now + 86_400_000,
  });
  return api;
}

const change = (RebateCodeId: number, ChangeType: 'Increase' | 'Decrease', Amount: number, rest: object = {}) =>
  ({ RebateCodeId, Amount, Usage: 0, ChangeType, ...rest });
const TEMPLATE = { TypeId: 1, Name: 'Thanks', Title: 'Thank you', Body: 'Thank you for your booking' };
const endpointBody = (Url: string) => ({ Url, EventTypes: ['booking.created', 'booking.canceled'], Description: 'To the POS' });

/** `options` with an Idempotency-Key (and more headers). */
const keyed = (key: string, options: CallOptions = {}, headers: Record<string, string> = {}): CallOptions => ({
  ...options,
  headers: { ...options.headers, ...headers, 'Idempotency-Key': key },
});

/** A key no other request of the file uses. */
let serial = 0;
const newKey = (what: string) => `${what}-${++serial}-${Math.random().toString(36).slice(2, 10)}`;

async function count(api: TestApp, table: string, where?: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: unknown }>`select count(*) as n from ${sql.table(table)} ${where ?? sql``}`.execute(api.store.db);
  return Number(rows[0].n);
}
/** Webhook events recorded: one outbox row per event (one subscribed endpoint per company). */
const events = (api: TestApp) => count(api, 'webhook_deliveries');
/** Stored Idempotency-Keys. */
const keys = (api: TestApp) => count(api, 'idempotency_keys');
const transactions = (api: TestApp) => count(api, 'rebate_code_transactions');
const remaining = async (api: TestApp, id: number) =>
  Number((await api.store.db.selectFrom('rebate_codes').select('remaining_amount').where('id', '=', id).executeTakeFirstOrThrow()).remaining_amount);

/** The tables whose rows differ from `before`. */
async function changedTables(api: TestApp, before: StoreState): Promise<string[]> {
  const now = await storeState(api.store);
  return Object.keys(now.tables).filter((table) => now.tables[table].join('\n') !== before.tables[table].join('\n'));
}

/** A first answer: it ran, so it is no replay. */
function ran(t: Test, res: LightMyRequestResponse, status: number, name: string) {
  t.equal(res.statusCode, status, `${name}: ${status}`);
  t.equal(res.headers[REPLAYED], undefined, `${name}: no ${REPLAYED} on a request that ran`);
}

/** A replay of `first`: the same status and the same result, marked replayed. */
function replayOf(t: Test, again: LightMyRequestResponse, first: LightMyRequestResponse, name: string) {
  t.equal(again.statusCode, first.statusCode, `${name}: the stored status`);
  t.equal(again.headers[REPLAYED], 'true', `${name}: ${REPLAYED}: true`);
  t.strictSame(again.json(), first.json(), `${name}: the stored result`);
}

const invalidKey = (name: string) => ({ status: 400, code: 'InvalidIdempotencyKey', name });
const reused = (name: string) => ({ status: 422, code: 'IdempotencyKeyReused', name });

/** A successful request of every write operation (each method but GET) on the test data. */
interface Write {
  operationId: string;
  method: Method;
  url: string;
  body?: object;
  /** the webhook event it records, if any */
  event?: string;
}
const WRITES: Write[] = [
  { operationId: 'DeleteResource', method: 'DELETE', url: '/resource/301', event: 'resource.deleted' },
  { operationId: 'CreateArticleRebateCode', method: 'POST', url: '/rebatecodes/fromarticle', body: { ArticleId: 2 }, event: 'rebatecode.created' },
  { operationId: 'CreateRebateCodeTransaction', method: 'POST', url: TRANSACTIONS, body: change(1000, 'Decrease', 1), event: 'rebatecode.transaction.created' },
  { operationId: 'DeleteCustomField', method: 'DELETE', url: '/customfields/50', event: 'customfield.deleted' },
  { operationId: 'CreateMessageTemplate', method: 'POST', url: TEMPLATES, body: TEMPLATE, event: 'messagetemplate.created' },
  { operationId: 'DeleteTag', method: 'DELETE', url: '/tags/11', event: 'tag.deactivated' },
  { operationId: 'CreateResourceType', method: 'POST', url: RESOURCE_TYPES, body: { Name: 'Rooms', Active: true }, event: 'resourcetype.created' },
  { operationId: 'UpdateWebhookEndpoint', method: 'PUT', url: POS, body: endpointBody('https://hooks.example.org/pos') },
  { operationId: 'DeleteMcpGrant', method: 'DELETE', url: '/assistant/mcp/grants/grant-a' },
];
const bodyOf = (write: Write): CallOptions => (write.body ? { body: write.body } : {});

// One app for the tests of the default configuration (each uses keys of its own, and checks
// changes against what it saw before); the tests of another configuration build their own.
const api = await setup(t, { METRICS_TOKEN });

t.test('the writes are the operations of every method but GET, and each declares an optional Idempotency-Key header', async (t) => {
  const { document, operations } = contract();
  const writes = [...operations.values()].filter((op) => op.method !== 'GET').map((op) => op.operationId).sort();
  t.strictSame(writes, WRITES.map((w) => w.operationId).sort(), 'this file covers every write');
  for (const op of operations.values()) {
    if (op.method === 'GET') continue;
    const parameters = deref(document, document.paths[op.path][op.method.toLowerCase()].parameters ?? []) as Array<Record<string, unknown>>;
    const header = parameters.find((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
    t.ok(header, `${op.operationId} declares the header`);
    t.notOk(header?.required, `${op.operationId}: optional`);
  }
});

t.test('the value of the key', async (t) => {

  t.test('by default a key is optional: a write without one runs each time, and stores no key', async (t) => {
    t.equal(testConfig().IDEMPOTENCY_KEY_REQUIRED, false, 'IDEMPOTENCY_KEY_REQUIRED defaults to false');
    t.equal(testConfig().IDEMPOTENCY_KEY_TTL_SECONDS, 86400, 'IDEMPOTENCY_KEY_TTL_SECONDS defaults to 86400');
    const [before, keysBefore, eventsBefore] = [await transactions(api), await keys(api), await events(api)];
    const first = await api.call('POST', TRANSACTIONS, { body: change(1008, 'Decrease', 1) });
    const second = await api.call('POST', TRANSACTIONS, { body: change(1008, 'Decrease', 1) });
    ran(t, first, 200, 'the first');
    ran(t, second, 200, 'the same request again');
    t.not(second.json().RebateCodeTransactionItem.Id, first.json().RebateCodeTransactionItem.Id, 'two transactions');
    t.equal(await transactions(api), before + 2);
    t.equal(await events(api), eventsBefore + 2, 'two events');
    t.equal(await keys(api), keysBefore, 'no key stored');
  });

  t.test('invalid values are 400 InvalidIdempotencyKey, and nothing runs', async (t) => {
    const values: Record<string, string> = {
      'an empty value': '',
      'an empty quoted string': '""',
      '256 characters': 'a'.repeat(256),
      '256 characters quoted': `"${'a'.repeat(256)}"`,
      'a space inside': 'two words',
      'a space inside the quotes': '"two words"',
      'a tab inside': 'tab\there',
      'non-ASCII (Latin-1)': 'clé',
      'non-ASCII (Cyrillic)': 'ключ',
      'DEL (0x7f)': 'del\u007f',
    };
    const unchanged = await snapshot(api.store);
    const keysBefore = await keys(api);
    for (const [why, value] of Object.entries(values)) {
      expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(value, { body: change(1000, 'Decrease', 1) })), invalidKey(why));
    }
    await unchanged.assert(t, 'no refused key ran anything');
    t.equal(await keys(api), keysBefore, 'and none was stored');
  });

  t.test('1 to 255 visible ASCII characters, bare or quoted, are keys: each runs once and is stored', async (t) => {
    const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    t.equal(visible.length, 94);
    const values: Record<string, [sent: string, key: string]> = {
      'one character': ['!', '!'],
      '255 characters': ['~'.repeat(255), '~'.repeat(255)],
      'every visible character': [visible, visible],
      '255 characters quoted': [`"${'k'.repeat(255)}"`, 'k'.repeat(255)],
      'one character quoted': ['"q"', 'q'],
    };
    for (const [why, [sent, key]] of Object.entries(values)) {
      const [before, keysBefore] = [await transactions(api), await keys(api)];
      const res = await api.call('POST', TRANSACTIONS, keyed(sent, { body: change(1000, 'Increase', 1) }));
      ran(t, res, 200, why);
      t.equal(await transactions(api), before + 1, `${why}: ran`);
      t.equal(await keys(api), keysBefore + 1, `${why}: stored`);
      const row = await sql<{ key: string; operation_id: string }>`select ${sql.ref('key')}, operation_id from idempotency_keys where company_id = ${COMPANY_A} and ${sql.ref('key')} = ${key}`.execute(api.store.db);
      t.equal(row.rows.length, 1, `${why}: stored as the key ${key.length > 20 ? `${key.slice(0, 20)}…` : key}`);
      t.equal(row.rows[0]?.operation_id, 'CreateRebateCodeTransaction', `${why}: with its operation`);
    }
  });

  t.test('"abc" and abc are one key', async (t) => {
    const bare = newKey('bare');
    const first = await api.call('POST', TRANSACTIONS, keyed(bare, { body: change(1000, 'Decrease', 2) }));
    ran(t, first, 200, 'bare');
    const before = await snapshot(api.store);
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(`"${bare}"`, { body: change(1000, 'Decrease', 2) })), first, 'then quoted');
    await before.assert(t, 'the quoted key replayed: nothing ran');
    const quoted = newKey('quoted');
    ran(t, await api.call('POST', TRANSACTIONS, keyed(`"${quoted}"`, { body: change(1000, 'Decrease', 2) })), 200, 'quoted first');
    const unchanged = await snapshot(api.store);
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(quoted, { body: change(1000, 'Decrease', 3) })), reused('then bare, with another body'));
    await unchanged.assert(t);
  });

  t.test('every write checks the key: a bad one is 400 InvalidIdempotencyKey on each, and nothing runs', async (t) => {
    const unchanged = await snapshot(api.store);
    for (const write of WRITES) {
      expectRefusal(t, await api.call(write.method, write.url, keyed('bad key', bodyOf(write))), invalidKey(write.operationId));
      expectRefusal(t, await api.call(write.method, write.url, keyed('', bodyOf(write))), invalidKey(`${write.operationId}, empty`));
    }
    await unchanged.assert(t);
  });

  t.test('a read ignores the key, even an invalid one', async (t) => {
    const lookup = `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&RebateCodeSign=GIFT-AAAA&ServiceId=100&IncludeConnectedServices=false`;
    const unchanged = await snapshot(api.store);
    for (const value of ['', '""', 'bad key', 'x'.repeat(300), 'ключ']) {
      const categories = await api.call('GET', '/categories', keyed(value, { as: null }));
      t.equal(categories.statusCode, 200, `CategoryQuery with ${JSON.stringify(value.slice(0, 12))}`);
      const code = await api.call('GET', lookup, keyed(value));
      t.equal(code.statusCode, 200, `GetRebateCodeBySign with ${JSON.stringify(value.slice(0, 12))}`);
      t.equal(code.json().RebateCodeSign, 'GIFT-AAAA');
    }
    const key = newKey('read');
    for (const i of [1, 2]) {
      const res = await api.call('GET', '/reports/booking/printout', keyed(key));
      t.equal(res.statusCode, 200, `BookingPrintoutQuery with a valid key, ${i}`);
      t.equal(res.headers[REPLAYED], undefined, `a read is never replayed (${i})`);
    }
    await unchanged.assert(t, 'reads stored no key');
  });
});

t.test('the order of the checks', async (t) => {

  t.test('the key is checked before the body: a bad key with an invalid body is InvalidIdempotencyKey', async (t) => {
    const unchanged = await snapshot(api.store);
    const bodies: Record<string, CallOptions> = {
      'a negative Amount': { body: change(1000, 'Decrease', -1) },
      'required fields missing': { body: { RebateCodeId: 1000 } },
      'an unknown ChangeType': { body: { ...change(1000, 'Decrease', 1), ChangeType: 'Refund' } },
      'a CSV body missing fields': { csv: 'RebateCodeId\r\nnope\r\n' },
      'no body at all': {},
    };
    for (const [why, options] of Object.entries(bodies)) {
      for (const value of ['bad key', '', 'a'.repeat(256)]) {
        expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(value, options)), invalidKey(`${why}, key ${JSON.stringify(value.slice(0, 8))}`));
      }
    }
    expectRefusal(t, await api.call('POST', RESOURCE_TYPES, keyed('bad key', { body: { Name: 42, Active: 'maybe' } })), invalidKey('CreateResourceType'));
    expectRefusal(t, await api.call('PUT', POS, keyed('bad key', { body: { Url: 'not a url', EventTypes: [] } })), invalidKey('UpdateWebhookEndpoint'));
    await unchanged.assert(t);
  });

  t.test('credentials, roles and company come before the key', async (t) => {
    const unchanged = await snapshot(api.store);
    const body = change(1000, 'Decrease', 1);
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('bad key', { body, as: null })), { status: 401, code: 'Unauthorized', name: 'no credentials' });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('bad key', { body, as: 'not.a.jwt' })), { status: 401, code: 'Unauthorized', name: 'a bad token' });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('bad key', { body, as: [READ] })), { status: 401, code: 'Unauthorized', name: 'the read role' });
    expectRefusal(t, await api.call('POST', RESOURCE_TYPES, keyed('bad key', { body: { Name: 'X' }, as: [READ] })), { status: 403, code: 'Forbidden', name: 'the read role, CreateResourceType' });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('bad key', { body: { ...body, CompanyId: COMPANY_A }, company: COMPANY_B })), { status: 401, code: 'Unauthorized', name: "another company's" });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('', { body: { RebateCodeId: 1000 }, as: null })), { status: 401, code: 'Unauthorized', name: 'no credentials, empty key, invalid body' });
    await unchanged.assert(t);
  });
});

t.test('scope: the company the write acts on, and the key', async (t) => {

  t.test('two companies using the same key both run, and each replays its own answer', async (t) => {
    const key = newKey('shared');
    const [eventsBefore, keysBefore] = [await events(api), await keys(api)];
    const a = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 5) }));
    const b = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 5), company: COMPANY_B }));
    ran(t, a, 200, 'company A');
    ran(t, b, 200, 'company B, same key');
    t.match(a.json().RebateCodeTransactionItem, { CompanyId: COMPANY_A, RebateCodeId: 1000 });
    t.match(b.json().RebateCodeTransactionItem, { CompanyId: COMPANY_B, RebateCodeId: 2000 });
    t.equal(await events(api), eventsBefore + 2, 'two events');
    t.equal(await keys(api), keysBefore + 2, 'a key per company');
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 5) })), a, "A's replay");
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 5), company: COMPANY_B })), b, "B's replay");
    await unchanged.assert(t);
  });

  t.test("the same key with another company's request is no reuse: B's key does not bind A", async (t) => {
    const key = newKey('apart');
    ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 1), company: COMPANY_B })), 200, 'B');
    const res = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Increase', 7) }));
    ran(t, res, 200, 'A, another body: runs, not 422');
  });

  t.test('a superadmin naming a company uses that company\'s keys', async (t) => {
    const key = newKey('named');
    const b = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 2), company: COMPANY_B }));
    ran(t, b, 200, "B's writer");
    const unchanged = await snapshot(api.store);
    const named = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 2, { CompanyId: COMPANY_B }), as: [SUPERADMIN] }));
    replayOf(t, named, b, 'a superadmin of A naming company B, same request');
    await unchanged.assert(t);
    ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 2), as: [SUPERADMIN] })), 200, 'the superadmin on its own company: runs');
  });
});

t.test('the fingerprint: what makes two requests the same request', async (t) => {

  t.test('a JSON body and a CSV body of the same fields are one request', async (t) => {
    const key = newKey('json-then-csv');
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 4) }));
    ran(t, first, 200, 'JSON');
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { csv: 'RebateCodeId,Amount,Usage,ChangeType\r\n1000,4,0,Decrease\r\n' })), first, 'then CSV');
    await unchanged.assert(t);

    const other = newKey('csv-then-json');
    const csv = await api.call('POST', TRANSACTIONS, keyed(other, { csv: 'changetype,usage,amount,rebatecodeid\r\nIncrease,0,6.5,1000\r\n' }));
    ran(t, csv, 200, 'CSV, names in another order and case');
    const again = await snapshot(api.store);
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(other, { body: change(1000, 'Increase', 6.5) })), csv, 'then JSON');
    await again.assert(t);
  });

  t.test('fields in another order or another case are the same request', async (t) => {
    const key = newKey('order');
    const first = await api.call('POST', RESOURCE_TYPES, keyed(key, {
      body: { Name: 'Stylists', Description: 'Hair', Active: true, Resources: [{ Id: 300, Priority: 1 }, { Id: 302 }] },
    }));
    ran(t, first, 200, 'CreateResourceType');
    const typesAfter = await count(api, 'resource_types');
    const unchanged = await snapshot(api.store);
    const variants: Record<string, object> = {
      'another order': { Resources: [{ Priority: 1, Id: 300 }, { Id: 302 }], Active: true, Description: 'Hair', Name: 'Stylists' },
      'names in lower case': { name: 'Stylists', description: 'Hair', active: true, resources: [{ Id: 300, Priority: 1 }, { Id: 302 }] },
      'names in upper case, another order': { ACTIVE: true, NAME: 'Stylists', RESOURCES: [{ Id: 300, Priority: 1 }, { Id: 302 }], DESCRIPTION: 'Hair' },
    };
    for (const [why, body] of Object.entries(variants)) replayOf(t, await api.call('POST', RESOURCE_TYPES, keyed(key, { body })), first, why);
    await unchanged.assert(t);
    t.equal(await count(api, 'resource_types'), typesAfter, 'one resource type');

    const transaction = newKey('case');
    const item = await api.call('POST', TRANSACTIONS, keyed(transaction, { body: change(1000, 'Decrease', 1.25) }));
    ran(t, item, 200, 'CreateRebateCodeTransaction');
    const same = await snapshot(api.store);
    const lower = { changetype: 'Decrease', usage: 0, amount: 1.25, rebatecodeid: 1000 };
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(transaction, { body: lower })), item, 'names in lower case, another order');
    await same.assert(t);
  });

  t.test('null equals absent, and CompanyId is resolved to the caller\'s company', async (t) => {
    const key = newKey('resolved');
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 3) }));
    ran(t, first, 200, 'without CompanyId or BookingId');
    const unchanged = await snapshot(api.store);
    const variants: Record<string, object> = {
      'BookingId null': change(1000, 'Decrease', 3, { BookingId: null }),
      'CompanyId named': change(1000, 'Decrease', 3, { CompanyId: COMPANY_A }),
      'CompanyId null': change(1000, 'Decrease', 3, { CompanyId: null }),
      'CompanyId blank': change(1000, 'Decrease', 3, { CompanyId: '' }),
      'both null': change(1000, 'Decrease', 3, { CompanyId: null, BookingId: null }),
    };
    for (const [why, body] of Object.entries(variants)) replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body })), first, why);
    await unchanged.assert(t);

    const named = newKey('named-first');
    const withId = await api.call('DELETE', `/tags/10?CompanyId=${COMPANY_A}`, keyed(named));
    ran(t, withId, 200, 'DeleteTag naming its company');
    const tagDone = await snapshot(api.store);
    replayOf(t, await api.call('DELETE', '/tags/10', keyed(named)), withId, 'DeleteTag without CompanyId');
    await tagDone.assert(t);
  });

  t.test('format is not part of the request: ?format=csv, .csv and Accept replay a JSON request', async (t) => {
    const key = newKey('format');
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 2) }));
    ran(t, first, 200, 'JSON');
    const id = first.json().RebateCodeTransactionItem.Id;
    const unchanged = await snapshot(api.store);
    for (const [why, url, headers] of [
      ['?format=csv', `${TRANSACTIONS}?format=csv`, {}],
      ['?format=json', `${TRANSACTIONS}?format=json`, {}],
      ['Accept: text/csv', TRANSACTIONS, { accept: 'text/csv' }],
    ] as Array<[string, string, Record<string, string>]>) {
      const res = await api.call('POST', url, keyed(key, { body: change(1000, 'Decrease', 2) }, headers));
      t.equal(res.statusCode, 200, `${why}: 200`);
      t.equal(res.headers[REPLAYED], 'true', `${why}: replayed`);
      t.match(res.body, new RegExp(`Id"?:${id}\\b`), `${why}: the stored transaction ${id}`);
    }
    await unchanged.assert(t);
  });

  t.test('a predefined route is the same request as the operation\'s path', async (t) => {
    const key = newKey('route');
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1.5) }));
    ran(t, first, 200, 'the path');
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('POST', '/api/CreateRebateCodeTransaction', keyed(key, { body: change(1000, 'Decrease', 1.5) })), first, '/api/CreateRebateCodeTransaction');
    await unchanged.assert(t);
  });

  t.test('the same key with another body is 422 IdempotencyKeyReused, and nothing runs', async (t) => {
    const key = newKey('reused');
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 10) }));
    ran(t, first, 200, 'the first');
    const unchanged = await snapshot(api.store);
    const others: Record<string, CallOptions> = {
      'another Amount': { body: change(1000, 'Decrease', 11) },
      'another ChangeType': { body: change(1000, 'Increase', 10) },
      'another code': { body: change(1008, 'Decrease', 10) },
      'a BookingId more': { body: change(1000, 'Decrease', 10, { BookingId: 500 }) },
      'a Usage more': { body: { ...change(1000, 'Decrease', 10), Usage: 1 } },
      'another Amount, as CSV': { csv: 'RebateCodeId,Amount,Usage,ChangeType\r\n1000,12,0,Decrease\r\n' },
    };
    for (const [why, options] of Object.entries(others)) {
      const res = await api.call('POST', TRANSACTIONS, keyed(key, options));
      expectRefusal(t, res, reused(why));
      t.equal(res.headers[REPLAYED], undefined, `${why}: no replay`);
    }
    await unchanged.assert(t, 'a reused key runs nothing');
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 10) })), first, 'the original request still replays');
  });

  t.test('the same key on another operation, or another Id, is 422 IdempotencyKeyReused', async (t) => {
    const key = newKey('other-operation');
    ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) })), 200, 'CreateRebateCodeTransaction');
    const tag = newKey('other-id');
    ran(t, await api.call('DELETE', '/tags/11', keyed(tag)), 200, 'DeleteTag 11');
    const endpoint = newKey('other-query');
    ran(t, await api.call('PUT', POS, keyed(endpoint, { body: endpointBody('https://hooks.example.org/one') })), 200, 'UpdateWebhookEndpoint');
    const unchanged = await snapshot(api.store);
    expectRefusal(t, await api.call('POST', TEMPLATES, keyed(key, { body: TEMPLATE })), reused('CreateMessageTemplate with its key'));
    expectRefusal(t, await api.call('POST', RESOURCE_TYPES, keyed(key, { body: { Name: 'Rooms' } })), reused('CreateResourceType with its key'));
    expectRefusal(t, await api.call('DELETE', '/tags/10', keyed(key)), reused('DeleteTag with its key'));
    expectRefusal(t, await api.call('DELETE', '/tags/10', keyed(tag)), reused('DeleteTag 10 with the key of DeleteTag 11'));
    expectRefusal(t, await api.call('PUT', POS, keyed(endpoint, { body: endpointBody('https://hooks.example.org/two') })), reused('UpdateWebhookEndpoint, another Url'));
    expectRefusal(t, await api.call('PUT', `/webhook/endpoints/events-a?CompanyId=${COMPANY_A}`, keyed(endpoint, { body: endpointBody('https://hooks.example.org/one') })), reused('UpdateWebhookEndpoint, another endpoint'));
    await unchanged.assert(t);
  });
});

t.test('replays', async (t) => {

  t.test('the same key and request replays the stored answer and runs nothing again', async (t) => {
    const key = newKey('replay');
    const [eventsBefore, before, balance] = [await events(api), await transactions(api), await remaining(api, 1000)];
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 10) }, { 'x-request-id': 'first-request' }));
    ran(t, first, 200, 'the first');
    t.equal(first.headers['x-request-id'], 'first-request');
    t.match(first.json().RebateCodeTransactionItem, { RebateCodeId: 1000, Amount: -10 });
    t.equal(await events(api), eventsBefore + 1, 'one event');
    t.equal(await transactions(api), before + 1, 'one transaction');
    t.equal(await remaining(api, 1000), balance - 10, 'taken');
    const unchanged = await snapshot(api.store);
    for (const retry of ['retry-1', 'retry-2', 'retry-3']) {
      const again = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 10) }, { 'x-request-id': retry }));
      replayOf(t, again, first, retry);
      t.equal(again.headers['x-request-id'], retry, `${retry}: the answer carries this request's id`);
      t.match(again.headers['content-type'], /^application\/json/, `${retry}: JSON`);
    }
    const anonymous = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 10) }));
    replayOf(t, anonymous, first, 'without an X-Request-Id');
    t.ok(anonymous.headers['x-request-id'], 'a made id');
    t.not(anonymous.headers['x-request-id'], 'first-request', "not the first answer's id");
    await unchanged.assert(t, 'no change in the store, no second webhook event');
    t.equal(await events(api), eventsBefore + 1, 'still one event');
    t.equal(await remaining(api, 1000), balance - 10, 'taken once');
  });

  t.test('a replay is serialized in the format this request asks for', async (t) => {
    const key = newKey('csv-first');
    const csv = await api.call('POST', `${TRANSACTIONS}?format=csv`, keyed(key, { body: change(1000, 'Decrease', 2.5) }));
    ran(t, csv, 200, 'the first, as CSV');
    t.match(csv.headers['content-type'], /^text\/csv/);
    const unchanged = await snapshot(api.store);
    for (const [why, url, headers] of [
      ['?format=csv', `${TRANSACTIONS}?format=csv`, {}],
      ['Accept: text/csv', TRANSACTIONS, { accept: 'text/csv' }],
    ] as Array<[string, string, Record<string, string>]>) {
      const again = await api.call('POST', url, keyed(key, { body: change(1000, 'Decrease', 2.5) }, headers));
      t.equal(again.statusCode, 200, `${why}: 200`);
      t.equal(again.headers[REPLAYED], 'true', `${why}: replayed`);
      t.match(again.headers['content-type'], /^text\/csv/, `${why}: CSV`);
      t.equal(again.headers['content-disposition'], csv.headers['content-disposition'], `${why}: the same attachment`);
      t.equal(again.body, csv.body, `${why}: the same CSV`);
    }
    const json = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 2.5) }));
    t.equal(json.headers[REPLAYED], 'true', 'as JSON: replayed');
    t.match(json.headers['content-type'], /^application\/json/, 'as JSON');
    const item = json.json().RebateCodeTransactionItem;
    t.match(item, { RebateCodeId: 1000, Amount: -2.5 });
    t.match(csv.body, new RegExp(`\\{Id:${item.Id},CompanyId:${COMPANY_A},RebateCodeId:1000,`), 'the CSV held the same transaction');
    await unchanged.assert(t);

    const other = newKey('json-first');
    const first = await api.call('POST', TRANSACTIONS, keyed(other, { body: change(1000, 'Decrease', 3.5) }));
    ran(t, first, 200, 'the first, as JSON');
    const asCsv = await api.call('POST', `${TRANSACTIONS}?format=csv`, keyed(other, { body: change(1000, 'Decrease', 3.5) }));
    t.equal(asCsv.headers[REPLAYED], 'true', 'replayed as CSV');
    const [header, row] = asCsv.body.split('\r\n');
    t.equal(header, 'ResponseStatus,RebateCodeTransactionItem');
    t.match(row, new RegExp(`^,"\\{Id:${first.json().RebateCodeTransactionItem.Id},CompanyId:${COMPANY_A},RebateCodeId:1000,`));
    t.match(row, /Amount:-3.5,/);
  });

  t.test('every write replays its answer and runs nothing the second time', async (t) => {
    for (const write of WRITES) {
      const key = newKey(write.operationId);
      const eventsBefore = await events(api);
      const first = await api.call(write.method, write.url, keyed(key, bodyOf(write)));
      ran(t, first, 200, write.operationId);
      t.equal(await events(api), eventsBefore + (write.event ? 1 : 0), `${write.operationId}: ${write.event ?? 'no event'}`);
      const unchanged = await snapshot(api.store);
      replayOf(t, await api.call(write.method, write.url, keyed(key, bodyOf(write))), first, `${write.operationId} again`);
      await unchanged.assert(t, `${write.operationId}: the replay changed nothing`);
    }
  });

  t.test('a replay runs nothing even when running again would now answer otherwise', async (t) => {
    const key = newKey('endpoint');
    const first = await api.call('PUT', POS, keyed(key, { body: endpointBody('https://hooks.example.org/first') }));
    ran(t, first, 200, 'the keyed update');
    t.match(first.json(), { Id: 'pos', Url: 'https://hooks.example.org/first', Secret: /^whsec_/ });
    ran(t, await api.call('PUT', POS, { body: endpointBody('https://hooks.example.org/second') }), 200, 'an update without a key');
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('PUT', POS, keyed(key, { body: endpointBody('https://hooks.example.org/first') })), first, 'the keyed update again');
    await unchanged.assert(t);
    const stored = await api.store.db.selectFrom('webhook_endpoints').select('url').where('company_id', '=', COMPANY_A).where('id', '=', 'pos').executeTakeFirstOrThrow();
    t.equal(stored.url, 'https://hooks.example.org/second', 'the endpoint keeps the later update');

    const template = newKey('template');
    const templatesBefore = await count(api, 'message_templates');
    const created = await api.call('POST', TEMPLATES, keyed(template, { body: { ...TEMPLATE, Name: 'Once' } }));
    ran(t, created, 200, 'CreateMessageTemplate');
    for (const i of [1, 2]) replayOf(t, await api.call('POST', TEMPLATES, keyed(template, { body: { ...TEMPLATE, Name: 'Once' } })), created, `CreateMessageTemplate again (${i})`);
    t.equal(await count(api, 'message_templates'), templatesBefore + 1, 'one template');
  });
});

t.test('what is stored: the handler\'s refusals below 500, without the write\'s changes', async (t) => {

  t.test('a 404 of the handler is stored and replayed', async (t) => {
    const key = newKey('not-found');
    const before = await storeState(api.store);
    const first = await api.call('DELETE', '/tags/20', keyed(key));
    ran(t, first, 404, "DeleteTag of company B's tag");
    expectRefusal(t, first, { status: 404, code: 'NotFound' });
    t.strictSame(await changedTables(api, before), ['idempotency_keys'], 'only the key was stored');
    const unchanged = await snapshot(api.store);
    const again = await api.call('DELETE', '/tags/20', keyed(key));
    replayOf(t, again, first, 'again');
    expectRefusal(t, again, { status: 404, code: 'NotFound' });
    await unchanged.assert(t);
    expectRefusal(t, await api.call('DELETE', '/tags/10', keyed(key)), reused('the key of the 404, on another tag'));
  });

  t.test('a 409 of DeleteResource (in use) is stored without the change, and replayed after the booking is gone', async (t) => {
    const key = newKey('in-use');
    const before = await storeState(api.store);
    const first = await api.call('DELETE', '/resource/300', keyed(key));
    ran(t, first, 409, 'DeleteResource of a booked resource');
    expectRefusal(t, first, { status: 409, code: 'Conflict' });
    t.strictSame(await changedTables(api, before), ['idempotency_keys'], 'only the key was stored: no change, no event');
    await api.store.db.updateTable('bookings').set({ status_id: 4 }).where('id', '=', 501).execute();
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('DELETE', '/resource/300', keyed(key)), first, 'again, now that the booking is canceled');
    await unchanged.assert(t, 'the replay deleted nothing');
    t.equal(await count(api, 'resources', sql`where id = 300`), 1, 'the resource is there');
    expectRefusal(t, await api.call('DELETE', '/resource/300?Force=true', keyed(key)), reused('the key with Force'));
    ran(t, await api.call('DELETE', '/resource/300', keyed(newKey('fresh'))), 200, 'a new key runs, and now deletes');
  });

  t.test('a rule of the document (400 InsufficientBalance) is stored and replayed, in JSON or CSV', async (t) => {
    const key = newKey('balance');
    const balance = await remaining(api, 1008);
    const body = change(1008, 'Decrease', balance + 0.01);
    const before = await storeState(api.store);
    const first = await api.call('POST', TRANSACTIONS, keyed(key, { body }));
    ran(t, first, 400, 'a Decrease beyond the balance');
    expectRefusal(t, first, { status: 400, code: 'InsufficientBalance', field: 'Amount' });
    t.strictSame(await changedTables(api, before), ['idempotency_keys'], 'only the key was stored');
    ran(t, await api.call('POST', TRANSACTIONS, { body: change(1008, 'Increase', 100) }), 200, 'an Increase without a key');
    const unchanged = await snapshot(api.store);
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body })), first, 'again, though the balance would now do');
    const csv = await api.call('POST', `${TRANSACTIONS}?format=csv`, keyed(key, { body }));
    t.equal(csv.statusCode, 400, 'as CSV: 400');
    t.equal(csv.headers[REPLAYED], 'true', 'as CSV: replayed');
    t.match(csv.headers['content-type'], /^text\/csv/);
    t.match(csv.body, /^ResponseStatus\r\n/);
    t.match(csv.body, /ErrorCode:InsufficientBalance/);
    await unchanged.assert(t);
    t.equal(await remaining(api, 1008), balance + 100, 'the refused Decrease never ran');
  });
});

t.test('a request refused before its handler stores nothing: the same key then runs', async (t) => {

  t.test('a validation error', async (t) => {
    const key = newKey('invalid-body');
    const unchanged = await snapshot(api.store);
    const refused = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', -1) }));
    t.equal(refused.statusCode, 400, 'a negative Amount: 400');
    t.not(refused.json().ResponseStatus.ErrorCode, 'InvalidIdempotencyKey', 'a validation error, not a key error');
    t.equal(refused.json().ResponseStatus.Errors[0]?.FieldName, 'Amount');
    const missing = await api.call('POST', TRANSACTIONS, keyed(key, { body: { RebateCodeId: 1000 } }));
    t.equal(missing.statusCode, 400, 'fields missing: 400');
    await unchanged.assert(t, 'nothing stored');
    const corrected = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) }));
    ran(t, corrected, 200, 'the corrected request (not 422)');
    replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) })), corrected, 'and its answer is the stored one');
  });

  t.test('credentials, roles and company', async (t) => {
    const key = newKey('refused-caller');
    const keysBefore = await keys(api);
    const unchanged = await snapshot(api.store);
    const body = change(1000, 'Decrease', 1);
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(key, { body, as: null })), { status: 401, name: 'no credentials' });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(key, { body, as: [READ] })), { status: 401, name: 'the read role' });
    expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: { ...body, CompanyId: COMPANY_B } })), { status: 401, name: 'company B named by a caller of A' });
    const types = newKey('refused-role');
    expectRefusal(t, await api.call('POST', RESOURCE_TYPES, keyed(types, { body: { Name: 'Rooms' }, as: [READ] })), { status: 403, name: 'CreateResourceType, the read role' });
    await unchanged.assert(t, 'nothing stored');
    t.equal(await keys(api), keysBefore, 'no key row');
    ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: { ...body, Amount: 2 } })), 200, 'the same key, by the right caller (not 422)');
    ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(2000, 'Decrease', 1), company: COMPANY_B })), 200, 'the same key in company B');
    ran(t, await api.call('POST', RESOURCE_TYPES, keyed(types, { body: { Name: 'Rooms' } })), 200, 'CreateResourceType by a writer');
  });

  t.test('the rate limit', async (t) => {
    const limited = await setup(t, { RATE_LIMIT_MAX: 1 });
    const key = newKey('rate');
    const request = async (remoteAddress: string) =>
      limited.inject({
        method: 'POST',
        url: TRANSACTIONS,
        headers: { ...(await bearer(COMPANY_A)), 'idempotency-key': key },
        payload: change(1000, 'Decrease', 1),
        remoteAddress,
      });
    t.equal((await limited.inject({ method: 'GET', url: '/categories', remoteAddress: '10.0.0.7' })).statusCode, 200, 'the address uses its one request');
    const unchanged = await snapshot(limited.store);
    expectRefusal(t, await request('10.0.0.7'), { status: 429, name: 'the keyed write, rate limited' });
    await unchanged.assert(t, 'nothing stored');
    const res = await request('10.0.0.8');
    ran(t, res, 200, 'the same key from another address: runs (not a replay)');
    t.equal(await keys(limited), 1);
  });
});

t.test('IDEMPOTENCY_KEY_REQUIRED: a write without a key is 400 IdempotencyKeyRequired; reads need none', async (t) => {
  const api = await setup(t, { IDEMPOTENCY_KEY_REQUIRED: true, METRICS_TOKEN });
  const unchanged = await snapshot(api.store);
  for (const write of WRITES) {
    expectRefusal(t, await api.call(write.method, write.url, bodyOf(write)), { status: 400, code: 'IdempotencyKeyRequired', name: write.operationId });
  }
  expectRefusal(t, await api.call('POST', TRANSACTIONS, { body: { RebateCodeId: 1000, Amount: -1 } }), { status: 400, code: 'IdempotencyKeyRequired', name: 'before the body is validated' });
  expectRefusal(t, await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: null }), { status: 401, code: 'Unauthorized', name: 'after credentials' });
  expectRefusal(t, await api.call('POST', TRANSACTIONS, { body: change(1000, 'Decrease', 1), as: [READ] }), { status: 401, code: 'Unauthorized', name: 'after roles' });
  expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('', { body: change(1000, 'Decrease', 1) })), invalidKey('an empty key is invalid, not missing'));
  await unchanged.assert(t);
  t.equal((await api.call('GET', '/categories', { as: null })).statusCode, 200, 'CategoryQuery without a key');
  t.equal((await api.call('GET', '/reports/booking/printout')).statusCode, 200, 'BookingPrintoutQuery without a key');
  t.equal(
    (await api.call('GET', `/rebatecodes/getbysign?CompanyId=${COMPANY_A}&RebateCodeSign=GIFT-AAAA&ServiceId=100&IncludeConnectedServices=false`)).statusCode,
    200,
    'GetRebateCodeBySign without a key',
  );
  const key = newKey('required');
  const first = await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) }));
  ran(t, first, 200, 'a write with a key');
  replayOf(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) })), first, 'and its replay');
  const text = await scrape(api);
  const counted = (operation: string, outcome: string) => sample(text, 'idempotency_requests_total', { operation, outcome }) ?? 0;
  t.equal(counted('CreateRebateCodeTransaction', 'required'), 2, 'required, counted for CreateRebateCodeTransaction (the auth refusals are not)');
  t.equal(counted('DeleteTag', 'required'), 1, 'required, counted for DeleteTag');
  t.equal(counted('CreateRebateCodeTransaction', 'invalid'), 1, 'invalid, counted');
});

t.test('expiry: after IDEMPOTENCY_KEY_TTL_SECONDS a key counts as absent', async (t) => {
  const api = await setup(t, { IDEMPOTENCY_KEY_TTL_SECONDS: 1 });
  const same = newKey('expired-same');
  const other = newKey('expired-other');
  const first = await api.call('POST', TRANSACTIONS, keyed(same, { body: change(1000, 'Decrease', 1) }));
  ran(t, first, 200, 'the first');
  ran(t, await api.call('POST', TRANSACTIONS, keyed(other, { body: change(1000, 'Decrease', 1) })), 200, 'another key');
  replayOf(t, await api.call('POST', TRANSACTIONS, keyed(same, { body: change(1000, 'Decrease', 1) })), first, 'within the TTL: replayed');
  expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(other, { body: change(1000, 'Decrease', 2) })), reused('within the TTL, another body'));
  const eventsBefore = await events(api);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const fresh = await api.call('POST', TRANSACTIONS, keyed(same, { body: change(1000, 'Decrease', 1) }));
  ran(t, fresh, 200, 'the same request after the TTL runs afresh');
  t.not(fresh.json().RebateCodeTransactionItem.Id, first.json().RebateCodeTransactionItem.Id, 'a new transaction');
  ran(t, await api.call('POST', TRANSACTIONS, keyed(other, { body: change(1000, 'Decrease', 2) })), 200, 'another body after the TTL runs (not 422)');
  t.equal(await events(api), eventsBefore + 2, 'two more events');
  t.equal(await remaining(api, 1000), 500 - 1 - 1 - 1 - 2, 'each run took its amount');
  const unchanged = await snapshot(api.store);
  replayOf(t, await api.call('POST', TRANSACTIONS, keyed(same, { body: change(1000, 'Decrease', 1) })), fresh, 'the key now replays its new answer');
  await unchanged.assert(t);
});

t.test('a stored key expires IDEMPOTENCY_KEY_TTL_SECONDS (by default 24 hours) after its first use', async (t) => {
  t.equal(api.config.IDEMPOTENCY_KEY_TTL_SECONDS, 86400);
  const key = newKey('ttl');
  const sent = Date.now();
  ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) })), 200, 'a keyed write');
  const rows = await sql<{ company_id: string; key: string; operation_id: string; status: unknown; expires_at: unknown }>`
    select company_id, ${sql.ref('key')}, operation_id, status, expires_at from idempotency_keys where ${sql.ref('key')} = ${key}`.execute(api.store.db);
  t.equal(rows.rows.length, 1, 'one key');
  const row = rows.rows[0];
  t.match(row, { company_id: COMPANY_A, key, operation_id: 'CreateRebateCodeTransaction' });
  t.equal(Number(row.status), 200, 'the answer is stored with its status');
  const raw = row.expires_at;
  const expires = typeof raw === 'string' && !/^\d+$/.test(raw) ? Date.parse(raw) : Number(raw) < 1e11 ? Number(raw) * 1000 : Number(raw);
  t.ok(Math.abs(expires - (sent + 86400 * 1000)) < 60_000, `expires 24 hours after the first use (${String(raw)})`);
});

t.test('metrics: idempotency_requests_total counts replays, reuses and invalid keys by operation', async (t) => {
  const text = await scrape(api);
  t.match(text, /^# TYPE idempotency_requests_total counter$/m, 'a counter');
  const counts = async () => {
    const now = await scrape(api);
    const of = (operation: string, outcome: string) => sample(now, 'idempotency_requests_total', { operation, outcome }) ?? 0;
    return {
      replayed: of('CreateRebateCodeTransaction', 'replayed'),
      reused: of('CreateRebateCodeTransaction', 'reused'),
      invalid: of('CreateRebateCodeTransaction', 'invalid'),
      tagReplayed: of('DeleteTag', 'replayed'),
      anyReplayed: sample(now, 'idempotency_requests_total', { outcome: 'replayed' }) ?? 0,
    };
  };
  const start = await counts();
  const since = async () => {
    const now = await counts();
    return Object.fromEntries(Object.entries(now).map(([name, value]) => [name, value - start[name as keyof typeof start]]));
  };
  const key = newKey('metrics');
  ran(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) })), 200, 'the first');
  t.strictSame(await since(), { replayed: 0, reused: 0, invalid: 0, tagReplayed: 0, anyReplayed: 0 }, 'a request that ran counts nothing');
  t.equal((await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) }))).headers[REPLAYED], 'true');
  t.strictSame(await since(), { replayed: 1, reused: 0, invalid: 0, tagReplayed: 0, anyReplayed: 1 }, 'a replay counts outcome="replayed" for its operation');
  await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 1) }));
  t.equal((await since()).replayed, 2, 'each replay counts');
  expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed(key, { body: change(1000, 'Decrease', 9) })), reused('another body'));
  t.equal((await since()).reused, 1, 'outcome="reused"');
  expectRefusal(t, await api.call('POST', TRANSACTIONS, keyed('bad key', { body: change(1000, 'Decrease', 1) })), invalidKey('a bad key'));
  t.equal((await since()).invalid, 1, 'outcome="invalid"');
  const tag = newKey('metrics-tag');
  ran(t, await api.call('DELETE', '/tags/10', keyed(tag)), 200, 'DeleteTag');
  await api.call('DELETE', '/tags/10', keyed(tag));
  t.strictSame(await since(), { replayed: 2, reused: 1, invalid: 1, tagReplayed: 1, anyReplayed: 3 }, 'a DeleteTag replay counts under DeleteTag');
});
