// The contract as a whole: it resolves, is OpenAPI 3.1, has the original service's
// operations and no more than its extensions, and keeps names that generated clients can use.

import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import t from 'tap';
import { OPERATIONS } from './interface-operations.js';
import { allKeys, allRefs, allSchemas, contract, type Obj, ops, pointer, sorted } from './shared.js';

t.test('every $ref in the contract resolves', async (t) => {
  const refs = [...new Set(allRefs(contract))];
  t.ok(refs.length > 0, 'the contract uses $refs');
  for (const ref of refs) t.doesNotThrow(() => pointer(ref), ref);
});

t.test('the contract is OpenAPI 3.1, its schemas JSON Schema 2020-12 with no keyword of 3.0', async (t) => {
  t.equal(contract.openapi, '3.1.0');
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  (formats as unknown as (ajv: Ajv2020) => void)(ajv);
  // OpenAPI's vocabulary and format registry, and the contract's extensions.
  ajv.addVocabulary(['components', 'discriminator', ...new Set(allKeys(contract).filter((key) => key.startsWith('x-')))]);
  for (const format of ['int16', 'int32', 'int64', 'float', 'double']) ajv.addFormat(format, { type: 'number', validate: () => true });
  ajv.addSchema({ $id: 'contract', components: { schemas: contract.components.schemas } });
  for (const name of Object.keys(contract.components.schemas)) {
    t.doesNotThrow(() => ajv.getSchema(`contract#/components/schemas/${name}`), `${name} compiles (strict)`);
  }
  for (const [where, schema] of allSchemas(contract, '#')) {
    const old = ['nullable', 'example'].filter((key) => key in schema);
    if (typeof schema.exclusiveMinimum === 'boolean' || typeof schema.exclusiveMaximum === 'boolean') old.push('a boolean exclusive bound');
    t.strictSame(old, [], `${where}: no keyword of OpenAPI 3.0`);
  }
});

t.test('beside a $ref, only annotations: every validator, the 3.0 copy and the compatibility gate read the reference alone', async (t) => {
  const annotations = new Set(['$ref', 'description', 'summary', 'examples', 'deprecated']);
  const beside: string[] = [];
  const visit = (node: unknown, where: string): void => {
    if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${where}[${i}]`));
    else if (node !== null && typeof node === 'object') {
      if ('$ref' in node) beside.push(...Object.keys(node).filter((key) => !annotations.has(key)).map((key) => `${where}.${key}`));
      for (const [key, value] of Object.entries(node)) visit(value, `${where}.${key}`);
    }
  };
  visit(contract, '#');
  t.strictSame(beside, [], 'a constraint beside a $ref belongs in an allOf');
});

t.test('exactly the thirteen operations of the original, with their methods and paths, and extensions marked as such', async (t) => {
  const expected = Object.entries(OPERATIONS).map(([id, o]) => `${id} ${o.method.toUpperCase()} ${o.path}`);
  const original = ops.filter((o) => o.op['x-extension'] !== true);
  const actual = original.map((o) => `${o.operationId} ${o.method.toUpperCase()} ${o.path}`);
  const extensions = ops.filter((o) => o.op['x-extension'] === true);
  t.ok(extensions.every((o) => !(o.operationId in OPERATIONS)), 'no operation of the original is marked as an extension');
  t.strictSame(sorted(extensions.map((o) => o.operationId)), ['DeleteMcpGrant', 'McpGrantQuery', 'WebhookEndpointMessageQuery'], 'the extensions');
  t.equal(expected.length, 13, 'the original has thirteen operations');
  t.strictSame(sorted(actual), sorted(expected));
  t.equal(new Set(ops.map((o) => o.operationId)).size, ops.length, 'operationIds are unique');
});

t.test('int64 only for the MCP token counters, whose sums may pass 2^31', async (t) => {
  const int64 = allSchemas(contract, '#').filter(([, schema]) => schema.format === 'int64').map(([where]) => where);
  t.strictSame(sorted(int64), sorted([
    '#.components.schemas.AiChatUsageResponse.properties.TokensUsed',
    '#.components.schemas.AiChatUsageResponse.properties.TokensRemaining',
    '#.components.schemas.McpGrant.properties.TokensUsed',
  ]));
});

// Generators name their own types after operations and components: @hey-api/openapi-ts
// `<OperationId>Data/Error/Errors/Response/Responses` and a type per schema, parameter and
// request body; orval `<OperationId>Params/Result/Body` and `<Name>Response`,
// `<Name>Body`, `<Name>Parameter` for response, request body and parameter components.
// A clash makes one of them rename a type (`CreateArticleRebateCode2`) or fail to compile
// (`Duplicate identifier`); test/clients proves the outcome, these rules keep it so.
t.test('component names cannot clash with the names generators derive', async (t) => {
  const components = (contract.components ?? {}) as Obj;
  const schemas = Object.keys(components.schemas ?? {});
  const taken = new Map(schemas.map((name) => [name.toLowerCase(), `schema ${name}`]));
  const claim = (name: string, by: string) => {
    const holder = taken.get(name.toLowerCase());
    t.notOk(holder, `${by} does not clash with ${holder ?? 'anything'}`);
    taken.set(name.toLowerCase(), by);
  };
  t.notOk(components.requestBodies, 'request bodies are declared in their operations');
  for (const name of Object.keys(components.parameters ?? {})) {
    claim(name, `parameter ${name}`);
    claim(`${name}Parameter`, `orval's ${name}Parameter`);
  }
  for (const name of Object.keys(components.responses ?? {})) claim(`${name}Response`, `orval's ${name}Response`);
  for (const o of ops) {
    for (const suffix of ['Data', 'Error', 'Errors', 'Response', 'Responses', 'Params', 'Result', 'Body']) {
      claim(`${o.operationId}${suffix}`, `${o.operationId}${suffix}`);
    }
    t.notOk(o.op.responses?.['200']?.$ref, `${o.operationId}: the 200 answer is declared in place`);
  }
});
