// Each operation's parameters: the original's, by name, place, requirement and type
// (notation.ts), with the `format` parameter every operation takes.

import t from 'tap';
import { OPERATIONS } from './interface-operations.js';
import { parameterProblems, parseSpec, requiredMatches } from './notation.js';
import { deref, opById, ops, sorted } from './shared.js';

t.test('every operation accepts the originaled `format` query parameter', async (t) => {
  for (const o of ops) {
    const format = o.params.find((p) => p.name === 'format');
    t.ok(format, `${o.operationId} has a format parameter`);
    if (!format) continue;
    t.equal(format.in, 'query', `${o.operationId} format is in query`);
    t.not(format.required, true, `${o.operationId} format is optional`);
    t.equal(deref(format.schema)?.type, 'string', `${o.operationId} format is a string`);
  }
});

t.test('every write, and no read, takes the optional Idempotency-Key header (docs/decisions.md, "Retried writes")', async (t) => {
  for (const o of ops) {
    const key = o.params.find((p) => p.name === 'Idempotency-Key');
    if (o.method === 'get') {
      t.notOk(key, `${o.operationId}: a read takes no key`);
      continue;
    }
    t.equal(key?.in, 'header', `${o.operationId}: the key is a header`);
    t.not(key?.required, true, `${o.operationId}: the key is optional`);
    t.equal(deref(key?.schema)?.maxLength, 257, `${o.operationId}: 255 characters, or 257 as a quoted string`);
    for (const status of ['409', '422']) t.ok(o.op.responses?.[status], `${o.operationId} declares ${status}`);
  }
});

t.test('operation parameters match the original (name, in, required, type)', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    t.test(id, async (t) => {
      const found = opById.get(id);
      if (!found) return t.fail(`${id} is missing from the contract`);
      const params = found.params.filter((p) => p.name !== 'format' && p.name !== 'Idempotency-Key');
      t.strictSame(
        sorted(params.map((p) => `${p.in}:${p.name}`)),
        sorted(Object.entries(doc.params).map(([name, [where]]) => `${where}:${name}`)),
        'parameter names and locations',
      );
      for (const [name, [where, raw]] of Object.entries(doc.params)) {
        const p = params.find((x) => x.name === name && x.in === where);
        if (!p) continue;
        const spec = parseSpec(raw);
        const required = p.required === true;
        t.ok(
          requiredMatches(spec, required),
          `${name}: required is ${required}, the original says ${spec.required ? 'required' : 'optional'}`,
        );
        // nullable is not compared for parameters: an absent query value is the null.
        t.strictSame(parameterProblems(p.schema, spec), [], `${name}: ${raw}`);
      }
      // Every path template variable is a declared path parameter.
      for (const [, variable] of found.path.matchAll(/\{([^}]+)\}/g)) {
        const p = found.params.find((x) => x.in === 'path' && x.name === variable);
        t.ok(p?.required === true, `path variable {${variable}} is a required path parameter`);
      }
    });
  }
});
