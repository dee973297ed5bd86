// The example requests of test/examples.ts, which the client, store, soak and bench runs
// share: each names only what its operation declares, and answers as it says it does on the
// demo data (through test/helper.ts, so each answer is also one the contract allows).

import t from 'tap';
import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import { DEMO, EXAMPLES, type Example, type ExampleOperation } from '../examples.js';
import { buildTestApp } from '../helper.js';
import { exampleOptions, exampleRequest } from '../operation-calls.js';
import { deref, jsonSchemaOf, opById, ops, sorted } from './shared.js';

const all = Object.entries(EXAMPLES).flatMap(([operationId, examples]) =>
  Object.entries(examples as Record<string, Example>).map(([name, example]) => ({ operationId: operationId as ExampleOperation, name, example })),
);

t.test('every operation of the contract has examples, and no other name does', async (t) => {
  t.strictSame(sorted(Object.keys(EXAMPLES)), sorted(ops.map((o) => o.operationId)));
  t.strictSame([DEMO.A, DEMO.B], [DEMO_COMPANY_A, DEMO_COMPANY_B], "the examples' companies are the demo data's");
});

t.test('each example sends what its operation declares', async (t) => {
  for (const { operationId, name, example } of all) {
    const operation = opById.get(operationId)!;
    const variables = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, variable]) => variable);
    t.strictSame(sorted(Object.keys(example.path ?? {})), sorted(variables), `${operationId}, ${name}: the path's variables`);
    const query = operation.params.filter((p) => p.in === 'query').map((p) => p.name as string);
    t.strictSame(Object.keys(example.query ?? {}).filter((key) => !query.includes(key)), [], `${operationId}, ${name}: declared query parameters`);
    const schema = operation.op.requestBody ? jsonSchemaOf(operation.op.requestBody) : undefined;
    t.equal(example.body !== undefined, schema !== undefined, `${operationId}, ${name}: a body exactly where the operation takes one`);
    const fields = Object.keys(deref(schema ?? {}).properties ?? {});
    t.strictSame(Object.keys(example.body ?? {}).filter((key) => !fields.includes(key)), [], `${operationId}, ${name}: body fields of its schema`);
  }
});

t.test('each example answers its status on the demo data', async (t) => {
  // One store per operation, its examples in the catalogue's order: a delete succeeds once.
  for (const [operationId, examples] of Object.entries(EXAMPLES) as Array<[ExampleOperation, Record<string, Example>]>) {
    const api = await buildTestApp(t, { data: buildDemoData(), company: DEMO_COMPANY_A });
    for (const [name, example] of Object.entries(examples)) {
      const { method, url } = exampleRequest(operationId, example);
      const response = await api.call(method, url, exampleOptions(example));
      t.equal(response.statusCode, example.status ?? 200, `${operationId}, ${name}: ${method} ${url} ${response.body.slice(0, 200)}`);
    }
  }
});
