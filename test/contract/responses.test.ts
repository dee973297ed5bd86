// Answers: each response object has the original's fields, with its types, nullability and
// required fields (notation.ts), and the formats the original gives in words.

import t from 'tap';
import { RESPONSE_OBJECTS } from './interface-responses.js';
import { parseSpec, responseInstances, specProblems } from './notation.js';
import { deref, fieldSetDiff, isRequired } from './shared.js';

t.test('each response object has exactly the original\'s field names', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      const instances = responseInstances.get(name) ?? [];
      t.ok(instances.length > 0, `${name} is reached from an operation's response`);
      for (const { where, schema } of instances) {
        t.equal(schema.type, 'object', `${where} is an object`);
        t.strictSame(fieldSetDiff(schema, fields), { missing: [], extra: [] }, `${where}: same field names, exact case`);
      }
    });
  }
});

t.test('response field types and formats match the original', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          t.strictSame(specProblems(property, parseSpec(raw)), [], `${where}.${field}: ${raw}`);
        }
      }
    });
  }
});

t.test('response fields are nullable exactly where the the original says nullable', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          const expected = parseSpec(raw).nullable;
          t.equal(deref(property).nullable === true, expected, `${where}.${field} nullable: ${expected}`);
        }
      }
    });
  }
});

t.test('response fields the original marks required are required', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    for (const [field, raw] of Object.entries(fields)) {
      if (!parseSpec(raw).required) continue;
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        t.ok(isRequired(schema, field), `${where}.${field} is required`);
      }
    }
  }
});

t.test('MCP usage counters: TokensUsed/TokensRemaining int64, TokenLimit/WindowDays int32, TokensRemaining never negative', async (t) => {
  const instances = responseInstances.get('AiChatUsageResponse') ?? [];
  t.ok(instances.length > 0);
  for (const { schema } of instances) {
    const p = (name: string) => deref(schema.properties?.[name]);
    t.strictSame([p('TokensUsed')?.type, p('TokensUsed')?.format], ['integer', 'int64'], 'TokensUsed');
    t.strictSame([p('TokensRemaining')?.type, p('TokensRemaining')?.format], ['integer', 'int64'], 'TokensRemaining');
    t.strictSame([p('TokenLimit')?.type, p('TokenLimit')?.format], ['integer', 'int32'], 'TokenLimit');
    t.strictSame([p('WindowDays')?.type, p('WindowDays')?.format], ['integer', 'int32'], 'WindowDays');
    t.equal(p('TokensRemaining')?.minimum, 0, 'TokensRemaining has minimum 0');
  }
});

t.test('"URI string" ImageUrl fields have format uri', async (t) => {
  const uriFields: [string, string][] = [
    ['ResourceQueryResponse', 'ImageUrl'],
    ['CustomFieldQueryResponse.Services[]', 'ImageUrl'],
    ['MessageServices', 'ImageUrl'],
    ['ResourceTypeResource', 'ImageUrl'],
  ];
  for (const [name, field] of uriFields) {
    t.equal(RESPONSE_OBJECTS[name]?.[field], 'uri', `${name}.${field} is a URI in the transcription`);
    const instances = responseInstances.get(name) ?? [];
    t.ok(instances.length > 0, `${name} is reached`);
    for (const { where, schema } of instances) {
      const p = deref(schema.properties?.[field]);
      t.strictSame([p?.type, p?.format], ['string', 'uri'], `${where}.${field}`);
    }
  }
});

t.test('FromTime and ToTime are hh:mm:ss timespans', async (t) => {
  const instances = responseInstances.get('RebateCodeResponse') ?? [];
  t.ok(instances.length > 0);
  for (const { where, schema } of instances) {
    for (const field of ['FromTime', 'ToTime']) {
      t.strictSame(specProblems(schema.properties?.[field], parseSpec('timespan')), [], `${where}.${field}`);
    }
  }
});
