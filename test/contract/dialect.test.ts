import t from 'tap';
import { createServerAjv } from '../../src/contract/ajv.js';
import { compilersFactory } from '../../src/http/compilers.js';

// One dialect (docs/decisions.md, "Events in the contract"): the contract's schemas are JSON
// Schema 2020-12, and so is every validator that reads them. `prefixItems` and `items: false`
// mean "exactly these items" in 2020-12; a draft-07 Ajv would not know `prefixItems` and take
// `items: false` as "no items at all".
const pair = { type: 'array', prefixItems: [{ type: 'integer' }, { type: ['string', 'null'] }], items: false };

t.test("the server's Ajv (executor, import, tests) reads JSON Schema 2020-12", async (t) => {
  const validate = createServerAjv().compile(pair);
  t.ok(validate([1, 'a']), 'the two items');
  t.ok(validate([1, null]), 'a type list admits null');
  t.notOk(validate([1, 'a', 2]), 'no third item');
  t.notOk(validate(['a', 1]), 'each item its own schema');
});

t.test("Fastify's validators are compiled by the same Ajv", async (t) => {
  const build = compilersFactory.buildValidator({});
  const validate = build({ schema: pair, method: 'GET', url: '/', httpPart: 'body' } as never) as (value: unknown) => boolean;
  t.ok(validate([1, 'a']));
  t.notOk(validate([1, 'a', 2]));
});
