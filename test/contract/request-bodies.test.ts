// Request bodies: each has the original's fields, types and required fields (notation.ts).

import t from 'tap';
import { OPERATIONS, REQUEST_OBJECTS } from './interface-operations.js';
import { parseSpec, requestInstances, requiredMatches, specProblems } from './notation.js';
import { deref, fieldSetDiff, isRequired, opById } from './shared.js';

t.test('request body field names equal the original\'s lists', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const found = opById.get(id);
    if (!doc.body) {
      t.notOk(found?.op.requestBody, `${id} has no request body`);
      continue;
    }
    t.ok(requestInstances.has(doc.body), `${id} has an application/json request body`);
  }
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(name, async (t) => {
      const instances = requestInstances.get(name) ?? [];
      t.ok(instances.length > 0, `${name} is reached from an operation's request body`);
      for (const { where, schema } of instances) {
        t.strictSame(fieldSetDiff(schema, fields), { missing: [], extra: [] }, `${where}: same field names, exact case`);
      }
    });
  }
});

t.test('request body field types match the original', async (t) => {
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of requestInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          const spec = parseSpec(raw);
          t.strictSame(specProblems(property, spec), [], `${where}.${field}: ${raw}`);
          if (spec.nullable) t.equal(deref(property).nullable, true, `${where}.${field} is nullable`);
        }
      }
    });
  }
});

t.test('request body required fields match the original', async (t) => {
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(`${name} body required fields`, async (t) => {
      for (const { where, schema } of requestInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const spec = parseSpec(raw);
          const required = isRequired(schema, field);
          t.ok(
            requiredMatches(spec, required),
            `${where}.${field}: required is ${required}, the original says ${spec.required ? 'required' : 'optional'}`,
          );
        }
        const undocumented = (schema.required ?? []).filter((f: string) => !(f in fields));
        t.strictSame(undocumented, [], `${where}: no required field outside the original's list`);
      }
    });
  }
});

t.test('UpdateWebhookEndpoint requires at least one event type', async (t) => {
  const schema = requestInstances.get('UpdateWebhookEndpoint')?.[0]?.schema;
  const eventTypes = deref(schema?.properties?.EventTypes);
  t.ok(eventTypes?.minItems >= 1, 'EventTypes has minItems >= 1');
});
