import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A } from '../../src/store/demo-data.js';
import { countStatements } from '../../src/store/statements.js';
import { buildTestApp, type CallOptions } from '../helper.js';
import { engine } from '../test-store.js';

// A prepared query is built and compiled once per engine (src/store/prepared.ts): after the
// first request of each variant, serving it again compiles nothing. Counted by a Kysely
// plugin that sees every compile (src/store/statements.ts), on the engine under test.

const A = DEMO_COMPANY_A;
const lookup = `/rebatecodes/getbysign?CompanyId=${A}&ServiceId=101`;

const PREPARED: Array<[string, string, string, CallOptions?]> = [
  ['GetRebateCodeBySign, the whole record', 'GET', `${lookup}&RebateCodeSign=VALUE1000&IncludeConnectedServices=true&IncludeConnectedDaysOfWeek=true&IncludeConnectedCustomers=true`],
  ['GetRebateCodeBySign, a per-customer count', 'GET', `${lookup}&RebateCodeSign=VIP25&IncludeConnectedServices=false&CustomerEmail=anna.svensson@example.com&IncludeConnectedCustomers=true`],
  ['GetRebateCodeBySign, the public view', 'GET', `${lookup}&RebateCodeSign=GIFT500&IncludeConnectedServices=true&CustomerEmail=anna.svensson@example.com`, { as: [] }],
  ['GetRebateCodeBySign, a miss', 'GET', `${lookup}&RebateCodeSign=NO-SUCH-CODE&IncludeConnectedServices=true`],
];

t.test(`after warm-up, serving an operation 50 times compiles no query (${engine})`, async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  for (const [name, method, url, options] of PREPARED) {
    const warm = await api.call(method as 'GET', url, options);
    t.ok(warm.statusCode === 200 || warm.statusCode === 404, `${name}: ${warm.statusCode}`);
    const { compiles, statements } = await countStatements(async () => {
      for (let i = 0; i < 50; i++) await api.call(method as 'GET', url, options);
    });
    t.equal(compiles, 0, `${name}: ${compiles} compiles in 50 calls (${statements} statements)`);
    t.ok(statements >= 50, `${name}: the calls ran their statements (${statements})`);
  }
});

t.test('a query built per request is counted: the counter can fail', async (t) => {
  const api = await buildTestApp(t, { data: buildDemoData(), company: A });
  const { compiles } = await countStatements(() => api.store.db.selectFrom('tags').select('id').execute());
  t.equal(compiles, 1);
});
