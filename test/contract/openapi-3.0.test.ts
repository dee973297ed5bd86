// toOpenApi30 (src/contract/openapi-3.0.ts): the contract in OpenAPI 3.0.3's words, for
// generators that do not read 3.1 and for openapi-diff. The copy uses no keyword 3.0 lacks,
// each of its schemas accepts and refuses the values the contract's schema does (Ajv2020 on
// the contract, draft-07 Ajv with its OpenAPI `nullable` on the copy), and a 3.0 document
// comes back unchanged.

import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import t from 'tap';
import { parse } from 'yaml';
import { addServerFormats, createServerAjv } from '../../src/contract/ajv.js';
import { toOpenApi30 } from '../../src/contract/openapi-3.0.js';
import { contract, type Obj } from './shared.js';

const released = readFileSync(new URL('../../openapi/released/openapi.yaml', import.meta.url), 'utf8');
const methods = ['get', 'put', 'post', 'delete', 'patch'];
const isObj = (node: unknown): node is Obj => typeof node === 'object' && node !== null && !Array.isArray(node);

/** Where a 3.1 keyword is left in `node`, found by reading every object but the names of `properties`. */
function offences(node: unknown, at = '#', names = false): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => offences(item, `${at}/${i}`));
  if (!isObj(node)) return [];
  const found: string[] = [];
  if (!names) {
    if (Array.isArray(node.type)) found.push(`${at}: type ${JSON.stringify(node.type)}`);
    if ('const' in node) found.push(`${at}: const`);
    if (Array.isArray(node.examples)) found.push(`${at}: examples`);
    for (const key of ['exclusiveMinimum', 'exclusiveMaximum']) if (typeof node[key] === 'number') found.push(`${at}: numeric ${key}`);
  }
  for (const [key, value] of Object.entries(node)) found.push(...offences(value, `${at}/${key}`, !names && key === 'properties'));
  return found;
}

/** The schema positions of a 3.1 document, as key paths (the copy has `x-webhooks` for `webhooks`). */
function* positions(document: Obj): Generator<string[]> {
  for (const name of Object.keys(document.components?.schemas ?? {})) yield ['components', 'schemas', name];
  for (const [name, parameter] of Object.entries<Obj>(document.components?.parameters ?? {})) {
    if (parameter.schema) yield ['components', 'parameters', name, 'schema'];
  }
  for (const section of ['paths', 'webhooks']) {
    for (const [path, item] of Object.entries<Obj>(document[section] ?? {})) {
      for (const method of methods.filter((m) => item[m])) {
        const at = [section, path, method];
        const { parameters = [], requestBody, responses = {} } = item[method];
        for (const [i, parameter] of (parameters as Obj[]).entries()) if (parameter.schema) yield [...at, 'parameters', String(i), 'schema'];
        for (const type of Object.keys(requestBody?.content ?? {})) yield [...at, 'requestBody', 'content', type, 'schema'];
        for (const [status, response] of Object.entries<Obj>(responses)) {
          for (const type of Object.keys(response.content ?? {})) yield [...at, 'responses', status, 'content', type, 'schema'];
        }
      }
    }
  }
}

/** A JSON pointer as a URI fragment, for a `$ref`. */
const fragment = (keys: string[]) => '#/' + keys.map((key) => encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
const at = (document: Obj, keys: string[]) => keys.reduce<any>((node, key) => node?.[key], document);

/** The 3.0 copy for a draft-07 Ajv: its boolean exclusive bounds in draft-07's numeric form. */
function draft07(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft07);
  if (!isObj(node)) return node;
  const out: Obj = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, draft07(value)]));
  for (const [exclusive, inclusive] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
    if (out[exclusive] === true) {
      out[exclusive] = out[inclusive];
      delete out[inclusive];
    } else if (out[exclusive] === false) delete out[exclusive];
  }
  return out;
}

const uuid = '5b0d4a4e-2f8c-4a5e-9a3b-7c1d2e3f4a5b';
const scalars = [
  ...[null, true, false, 0, 1, -1, 2.5, 2 ** 31, 1e300, [], {}],
  ...['', 'x', 'SE', '#33aaff', '08:00:00', '2024-05-01', '2024-05-01T08:00:00Z', uuid, 'https://example.org/hooks', '1714550400', 'whsec_c2VjcmV0'],
];
const byFormat: Obj = { 'date-time': '2024-05-01T08:00:00Z', date: '2024-05-01', uuid, uri: 'https://example.org/', email: 'guest@example.org' };
const byType: Obj = { string: 'x', integer: 1, number: 2.5, boolean: true, array: [], object: {}, null: null };

/**
 * Values to try on the schema at `keys`, likeliest to be valid first: its own (enum, const,
 * examples, example, its bounds and either side of them), an object of each property's first
 * value that `valid` accepts and that object with each property replaced by its other values or
 * left out, arrays of its items' values, its alternatives' values, then every scalar.
 */
function samples(document: Obj, keys: string[], valid: (keys: string[], value: unknown) => boolean, depth = 0): unknown[] {
  let schema = at(document, keys);
  while (isObj(schema) && typeof schema.$ref === 'string') schema = at(document, (keys = schema.$ref.slice(2).split('/')));
  if (!isObj(schema)) return scalars;
  const types = [schema.type ?? []].flat().filter((type: string) => type !== 'null');
  const values: unknown[] = [...(schema.enum ?? []), ...(schema.examples ?? [])];
  for (const key of ['const', 'example']) if (key in schema) values.push(schema[key]);
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    if (typeof schema[key] === 'number') values.push(schema[key] - 0.5, schema[key], schema[key] + 0.5);
  }
  const below = (...more: string[]) => samples(document, [...keys, ...more], valid, depth + 1);
  if (depth < 6) {
    const properties = Object.keys(schema.properties ?? {}).map((name) => {
      const options = below('properties', name);
      return [name, options, options.find((value) => valid([...keys, 'properties', name], value)) ?? options[0]] as const;
    });
    if (properties.length > 0) {
      const first = Object.fromEntries(properties.map(([name, , value]) => [name, value]));
      values.push(first);
      for (const [name, options] of properties) {
        for (const option of options.slice(0, 12)) values.push({ ...first, [name]: option });
        const without = { ...first };
        delete without[name];
        values.push(without);
      }
    }
    if (schema.items) values.push(...below('items').slice(0, 6).map((item) => [item]));
    for (const key of ['oneOf', 'anyOf', 'allOf']) {
      for (const i of (schema[key] ?? []).keys()) values.push(...below(key, String(i)).slice(0, 40));
    }
  }
  values.push(...types.map((type: string) => (type === 'string' && byFormat[schema.format]) || byType[type]), ...scalars);
  return [...new Map(values.map((value) => [JSON.stringify(value), value])).values()].slice(0, 400);
}

/** Where a schema of `document` and its 3.0 copy disagree on a value; how many values each schema accepted. */
function disagreements(document: Obj): { found: string[]; accepted: Map<string, number> } {
  const ajv2020 = createServerAjv({ useDefaults: false, allErrors: false, verbose: false });
  const ajv07 = new Ajv({ strict: false });
  // ajv-formats is CommonJS: its default export is the plugin itself at run time.
  (formats as unknown as (ajv: Ajv) => void)(ajv07);
  addServerFormats(ajv07);
  ajv2020.addSchema(document, 'contract.json');
  const copy = toOpenApi30(document);
  ajv07.addSchema(draft07(copy) as Obj, 'contract30.json');
  const validators = new Map<string, (value: unknown) => boolean>();
  const valid = (keys: string[], value: unknown) => {
    const where = fragment(keys);
    if (!validators.has(where)) validators.set(where, ajv2020.compile({ $ref: `contract.json${where}` }));
    return validators.get(where)!(value);
  };
  const found: string[] = [];
  const accepted = new Map<string, number>();
  for (const keys of positions(document)) {
    const where = fragment(keys);
    const copyKeys = keys[0] === 'webhooks' ? ['x-webhooks', ...keys.slice(1)] : keys;
    const v30 = ajv07.compile({ $ref: `contract30.json${fragment(copyKeys)}` });
    let count = 0;
    // The values of both schemas: a value only one of them names is where they would differ.
    const copyValid = (keys: string[], value: unknown) => valid(keys[0] === 'x-webhooks' ? ['webhooks', ...keys.slice(1)] : keys, value);
    const tried = [...samples(document, keys, valid), ...samples(copy, copyKeys, copyValid)];
    for (const value of new Map(tried.map((value) => [JSON.stringify(value), value])).values()) {
      const [a, b] = [valid(keys, value), v30(value)];
      if (a) count++;
      const judged = (ok: boolean) => (ok ? 'valid' : 'invalid');
      if (a !== b) found.push(`${where}: ${JSON.stringify(value).slice(0, 300)} is ${judged(a)} in 3.1, ${judged(b)} in 3.0`);
    }
    accepted.set(where, count);
  }
  return { found, accepted };
}

// Every rule, and the places a schema may sit, on one small document.
const rules = {
  openapi: '3.1.0',
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  info: { title: 'Rules', version: '1.0.0' },
  paths: {
    '/things': {
      parameters: [{ name: 'Skip', in: 'query', schema: { type: ['integer', 'null'], exclusiveMinimum: 0, examples: [5] } }],
      post: {
        parameters: [
          { name: 'Filter', in: 'query', content: { 'application/json': { schema: { type: 'object', properties: { type: { const: 'a' } } } } } },
        ],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: {
          200: {
            description: 'OK',
            headers: { 'X-Left': { schema: { type: ['string', 'null'], examples: ['a', 'b'] } } },
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } },
          },
        },
      },
    },
  },
  webhooks: {
    'thing.made': {
      post: {
        requestBody: {
          content: { 'application/json': { schema: { type: 'object', properties: { type: { type: 'string', const: 'thing.made' } } } } },
        },
        responses: { '2XX': { description: 'Delivered' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        examples: [{ type: 'x' }],
        properties: {
          // Properties named as keywords keep their names; their schemas are rewritten.
          type: { type: ['string', 'null'], enum: ['a', 'b', null] },
          const: { const: 3 },
          examples: { type: 'array', items: { type: 'number', exclusiveMaximum: 10 } },
          exclusiveMinimum: { type: 'number', exclusiveMinimum: 1, minimum: 2 },
          Ratio: { type: 'number', exclusiveMinimum: 0, minimum: 0, exclusiveMaximum: 1, maximum: 0.5 },
          Map: { type: 'object', additionalProperties: { type: ['integer', 'null'] } },
          Either: { anyOf: [{ const: 'a' }, { type: 'integer', exclusiveMaximum: 0 }], not: { const: -5 } },
          Both: { allOf: [{ type: ['number', 'null'] }, { type: ['number', 'null'], exclusiveMinimum: -1 }] },
        },
      },
    },
  },
};

t.test('each rule, in every place a schema sits, as OpenAPI 3.0.3 says it', async (t) => {
  const copy: Obj = toOpenApi30(rules);
  t.equal(copy.openapi, '3.0.3');
  t.notOk('jsonSchemaDialect' in copy, 'jsonSchemaDialect dropped');
  t.notOk('webhooks' in copy, 'no webhooks section');
  t.strictSame((copy as Obj)['x-webhooks']['thing.made'].post.requestBody.content['application/json'].schema.properties.type, {
    type: 'string',
    enum: ['thing.made'],
  }, 'the webhooks, as x-webhooks, rewritten alike');
  const things = copy.paths['/things'];
  t.strictSame(things.parameters[0].schema, { type: 'integer', nullable: true, minimum: 0, exclusiveMinimum: true, example: 5 });
  t.strictSame(things.post.parameters[0].content['application/json'].schema.properties.type, { enum: ['a'] });
  t.strictSame(things.post.responses[200].headers['X-Left'].schema, { type: 'string', nullable: true, example: 'a' });
  const thing = copy.components.schemas.Thing;
  t.strictSame(Object.keys(thing.properties), Object.keys(rules.components.schemas.Thing.properties), 'no property renamed');
  t.strictSame(thing.example, { type: 'x' });
  t.strictSame(thing.properties, {
    type: { type: 'string', nullable: true, enum: ['a', 'b', null] },
    const: { enum: [3] },
    examples: { type: 'array', items: { type: 'number', maximum: 10, exclusiveMaximum: true } },
    exclusiveMinimum: { type: 'number', minimum: 2 },
    Ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 0.5 },
    Map: { type: 'object', additionalProperties: { type: 'integer', nullable: true } },
    Either: { anyOf: [{ enum: ['a'] }, { type: 'integer', maximum: 0, exclusiveMaximum: true }], not: { enum: [-5] } },
    Both: { allOf: [{ type: 'number', nullable: true }, { type: 'number', nullable: true, minimum: -1, exclusiveMinimum: true }] },
  });
  t.strictSame(offences(copy), [], 'no 3.1 keyword left');
  t.strictSame(disagreements(rules).found, [], 'the same values valid');
  t.equal(rules.openapi, '3.1.0', 'the document itself is left as it was');
  t.throws(() => toOpenApi30({ components: { schemas: { X: { type: ['string', 'integer'] } } } }), /one type per schema/);
  for (const keyword of ['prefixItems', 'if', 'patternProperties', 'unevaluatedProperties', '$defs']) {
    const document = { components: { schemas: { X: { type: 'object', properties: { Y: { type: 'array', [keyword]: {} } } } } } };
    t.throws(() => toOpenApi30(document), { message: `${keyword}: OpenAPI 3.0 cannot say it` }, `${keyword} is refused, not dropped`);
  }
  t.throws(() => toOpenApi30({ components: { schemas: { X: { type: 'null' } } } }), /type 'null': OpenAPI 3.0 cannot say it/);
});

t.test('the contract as OpenAPI 3.0.3 uses no keyword 3.0 does not read', async (t) => {
  t.ok(offences(contract).length > 0, 'the contract itself uses 3.1 keywords');
  const copy = toOpenApi30(contract);
  t.equal(copy.openapi, '3.0.3');
  t.strictSame(offences(copy), []);
  t.strictSame(Object.keys(copy['x-webhooks']), Object.keys(contract.webhooks), 'each webhook, under x-webhooks');
  t.notOk('webhooks' in copy);
  t.equal(contract.openapi, '3.1.0', 'the contract itself is left as it was');
});

t.test("each schema of the copy accepts and refuses the values the contract's does", async (t) => {
  const { found, accepted } = disagreements(contract);
  t.strictSame(found, []);
  t.ok(accepted.size > 100, `${accepted.size} schema positions compared`);
  const none = [...accepted].filter(([, count]) => count === 0).map(([where]) => where);
  t.strictSame(none, [], 'each schema accepts some of its values, so both sides of each are compared');
});

t.test('an OpenAPI 3.0 document comes back unchanged', async (t) => {
  const document = parse(released) as Obj;
  t.equal(document.openapi, '3.0.3');
  t.strictSame(toOpenApi30(document), document, 'the released contract');
  const copy = toOpenApi30(contract);
  t.strictSame(toOpenApi30(copy), copy, 'the contract once converted');
});
