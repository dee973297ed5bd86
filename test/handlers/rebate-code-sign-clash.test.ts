import t from 'tap';
import { SIGN_ATTEMPTS } from '../../src/domain/rebate-code-sign.js';
import { buildDemoData, DEMO_COMPANY_A, DEMO_IDS } from '../../src/store/demo-data.js';
import { buildTestApp, expectRefused } from '../helper.js';
import { engine } from '../test-store.js';

// CreateArticleRebateCode when the drawn sign is one the company has already. The operation
// records rebatecode.created (x-webhook-events), so its handler runs inside the transaction
// of the write and its event: a clash must not break that transaction (on PostgreSQL a
// failed statement aborts it), and the next sign is tried in it.

const FROM_ARTICLE = '/rebatecodes/fromarticle';
const TAKEN = 'gift500'; // the demo's GIFT500 of company A, in another case
const FRESH = 'K7QM-3WHP';
const purchase = { ArticleId: DEMO_IDS.articles.giftCard, Customer: { Email: 'clash.buyer@example.com', Firstname: 'Clash' } };

/** The demo app whose signs come from `signs`, with company A's rebate code endpoint enabled so the event is recorded. */
async function setup(t: Parameters<typeof buildTestApp>[0], signs: () => string) {
  const api = await buildTestApp(t, { data: buildDemoData(), company: DEMO_COMPANY_A, generateSign: signs });
  await api.store.db.updateTable('webhook_endpoints').set({ disabled: 0 }).where('id', '=', DEMO_IDS.webhooks.rebatesA).execute();
  return api;
}

const codesOf = (api: Awaited<ReturnType<typeof setup>>) =>
  api.store.db.selectFrom('rebate_codes').select(['id', 'sign']).where('company_id', '=', DEMO_COMPANY_A).orderBy('id').execute();

t.test(`a sign the company has already is replaced by a fresh one in the same transaction (${engine})`, async (t) => {
  const drawn = [TAKEN, FRESH];
  let draws = 0;
  const api = await setup(t, () => {
    draws++;
    return drawn.shift()!;
  });
  const before = await codesOf(api);
  t.ok(before.some((c) => c.sign === 'GIFT500'), 'the demo has the taken sign');
  const res = await api.call('POST', FROM_ARTICLE, { body: purchase });
  t.equal(res.statusCode, 200);
  t.equal(res.json().RebateCodeSign, FRESH, 'the answer carries the fresh sign');
  t.equal(draws, 2, 'one clash, one fresh sign');
  const after = await codesOf(api);
  t.same(after.slice(0, before.length), before, 'the existing codes are untouched');
  t.same(after.slice(before.length).map((c) => c.sign), [FRESH], 'exactly one new code');
  const buyers = await api.store.db.selectFrom('customers').select('id').where('email', '=', purchase.Customer.Email).execute();
  t.equal(buyers.length, 1, 'the buyer is created once');
  const events = await api.store.db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).execute();
  t.same(events.map((e) => e.event_type), ['rebatecode.created'], 'the event was recorded in the same transaction');
  t.equal(JSON.parse(events[0]!.payload).data.RebateCodeSign, FRESH);
});

t.test(`a sign that clashes on every draw is refused as exhausted, with nothing stored (${engine})`, async (t) => {
  let draws = 0;
  const api = await setup(t, () => {
    draws++;
    return TAKEN;
  });
  await expectRefused(t, api, 'POST', FROM_ARTICLE, { body: purchase }, { status: 500, code: 'InternalServerError' });
  t.equal(draws, SIGN_ATTEMPTS, 'every attempt was made');
});
