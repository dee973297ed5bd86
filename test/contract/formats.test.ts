// The wire format (docs/decisions.md, "Wire format") offers JSON and CSV on every operation.
// The content maps declare JSON alone, so that generated clients type each answer and body as
// its schema (not "schema or text"); `x-csv: true` says the operation speaks CSV as well.

import t from 'tap';
import { deref, type Obj, ops } from './shared.js';

t.test('every operation answers JSON in its content maps and is marked x-csv for CSV', async (t) => {
  for (const o of ops) {
    t.equal(o.op['x-csv'], true, `${o.operationId} is marked x-csv`);
    const ok = deref(o.op.responses?.['200']);
    t.ok(ok?.content?.['application/json']?.schema, `${o.operationId} 200 application/json`);
    for (const [status, response] of Object.entries((o.op.responses ?? {}) as Obj)) {
      t.strictSame(Object.keys(deref(response)?.content ?? {}), ['application/json'], `${o.operationId} ${status} declares JSON alone`);
    }
    const successes = Object.keys(o.op.responses ?? {}).filter((s) => /^[123]\d\d$|^[123]XX$/.test(s));
    t.strictSame(successes, ['200'], `${o.operationId}: 200 is the only success status`);
  }
});

t.test('POST and PUT request bodies are required and declare JSON (x-csv adds CSV)', async (t) => {
  for (const o of ops) {
    if (o.method !== 'post' && o.method !== 'put') continue;
    const body = deref(o.op.requestBody);
    t.ok(body, `${o.operationId} has a request body`);
    t.equal(body?.required, true, `${o.operationId} request body is required`);
    t.strictSame(Object.keys(body?.content ?? {}), ['application/json'], `${o.operationId} body declares JSON alone`);
  }
});
