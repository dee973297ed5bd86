import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { countStatements } from '../../src/store/statements.js';
import { buildTestApp } from '../helper.js';
import { SUCCESSFUL_CALLS } from '../operation-calls.js';
import { engine } from '../test-store.js';

// Every query of a request is a prepared query, built and compiled once per engine
// (src/store/prepared.ts): after warm-up, serving every operation again compiles nothing.
// Counted by a Kysely plugin that sees every compile (src/store/statements.ts), on the
// engine under test.

const A = DEMO_COMPANY_A;
const ROUNDS = 50;

// Calls that succeed again and again. The deletes succeed once and are then refused (404),
// and a decrease of a value card until its balance runs out (400): refusals are paths of
// their own, which must not compile either.
const REPEATABLE = /^(CreateArticleRebateCode|CreateMessageTemplate|CreateResourceType|UpdateWebhookEndpoint|GetRebateCodeBySign|CategoryQuery|BillingMethodQuery|BookingPrintoutQuery|GetMcpUsage)/;

t.test(`after warm-up, serving every operation ${ROUNDS} times compiles no query (${engine})`, async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  // Two rounds of warm-up: the first takes each success path, the second the refusals of the deletes.
  for (let round = 0; round < 2; round++) for (const [, method, url, options] of SUCCESSFUL_CALLS) await api.call(method, url, options);
  for (const [name, method, url, options] of SUCCESSFUL_CALLS) {
    const statuses = new Set<number>();
    const { compiles, statements } = await countStatements(async () => {
      for (let i = 0; i < ROUNDS; i++) statuses.add((await api.call(method, url, options)).statusCode);
    });
    t.equal(compiles, 0, `${name}: ${compiles} compiles in ${ROUNDS} calls (${statements} statements)`);
    t.ok(statements >= ROUNDS, `${name}: the calls ran their statements (${statements})`);
    if (REPEATABLE.test(name)) t.strictSame([...statuses], [200], `${name}: every call succeeded`);
  }
});

t.test('a query built per request is counted: the counter can fail', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  const { compiles } = await countStatements(() => api.store.db.selectFrom('tags').select('id').execute());
  t.equal(compiles, 1);
});
