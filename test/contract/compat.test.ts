// `npm run check:compat` (docs/contract.md, "Releasing"): a change that breaks clients generated from the
// released contract, or webhook receivers, fails the check whatever info.version says; it passes
// only when accepted (--accept-breaking) with the major version raised. Other changes pass. Each
// case compares two temporary copies of the working contract (OpenAPI 3.1), one of them changed;
// the released contract (3.0) is compared with the working one as it is.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { checkCompat, formatReport } from '../../scripts/check-compat.js';
import { compareDocuments, localRefs } from '../../scripts/check-compat/documents.js';
import { compareSchemas, type Direction } from '../../scripts/check-compat/schemas.js';
import { toOpenApi30 } from '../../src/contract/openapi-3.0.js';

const root = new URL('../../', import.meta.url).pathname;
const contractText = readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8');

type Json = Record<string, any>;
type Contract = {
  info: { version: string };
  paths: Record<string, Json>;
  webhooks: Record<string, Json>;
  components: { schemas: Record<string, Json>; parameters: Record<string, Json> };
};

const dir = mkdtempSync(join(tmpdir(), 'check-compat-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let written = 0;

/** Keeps `paths` (`/…`) and webhooks (event types) and the components they refer to. */
function keepOnly(contract: Contract, paths: string[]): void {
  for (const path of Object.keys(contract.paths)) if (!paths.includes(path)) delete contract.paths[path];
  for (const event of Object.keys(contract.webhooks)) if (!paths.includes(event)) delete contract.webhooks[event];
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && !used.has(ref)) {
      used.add(ref);
      visit(ref.slice(2).split('/').reduce<Json | undefined>((parent, key) => parent?.[key], contract));
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(contract.paths);
  visit(contract.webhooks);
  for (const [section, entries] of Object.entries(contract.components as Record<string, Json>)) {
    if (section === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${section}/${name}`)) delete entries[name];
  }
}

/**
 * A copy of the contract at `version`, changed by `change`; its path. With `paths`, the copy
 * keeps only those paths and webhooks and what they use (openapi-diff takes seconds over the
 * whole contract).
 */
function contractFile(version: string, change: (contract: Contract) => void = () => {}, paths?: string[]): string {
  const contract = parse(contractText) as Contract;
  contract.info.version = version;
  change(contract);
  if (paths) keepOnly(contract, paths);
  const path = join(dir, `openapi-${++written}.yaml`);
  writeFileSync(path, stringify(contract));
  return path;
}

const removeTagColor = (contract: Contract) => {
  delete contract.components.schemas.TagResponse.properties.Color;
};
const addTagNote = (contract: Contract) => {
  contract.components.schemas.TagResponse.properties.Note = { type: 'string' };
};

// The operation answering a tag is enough for these; the whole contract is compared by
// `npm run check:compat` itself.
const tagPaths = ['/tags/{Id}'];
const released = contractFile('1.4.2', undefined, tagPaths);

function compatCommand(current: string, ...options: string[]) {
  return spawnSync(
    process.execPath,
    [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/check-compat.ts'), '--released', released, '--current', current, ...options],
    { cwd: root, encoding: 'utf8', timeout: 60000 },
  );
}

t.test('the released contract (OpenAPI 3.0) and the working one (3.1): no breaking change, and it passes', async (t) => {
  const report = await checkCompat();
  t.equal(report.failure, undefined, formatReport(report));
  t.strictSame(report.breaking, [], 'the wire did not change');
  t.strictSame(report.unclassified, [], 'the webhooks are judged, not left for review');
  const working = parse(contractText) as Contract;
  for (const event of Object.keys(working.webhooks)) {
    t.ok(report.nonBreaking.some((c) => c.code === 'webhook.add' && c.where === `webhook ${event}`), `${event}: an event added`);
  }
  const payload = report.nonBreaking.find((c) => c.where === 'GET /webhook/endpoints/{Id}/messages, response 200 body');
  t.match(payload?.what, ['Results[].Payload: oneOf of 0 → 8 schemas'], "a message's Payload is one of the typed events");
  t.match(formatReport(report), /OK: clients generated from the released contract, and the webhooks' receivers, keep working\.$/);

  const run = spawnSync(process.execPath, [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/check-compat.ts')], {
    cwd: root, encoding: 'utf8', timeout: 60000,
  });
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, /^Compared openapi\/openapi\.yaml \(version [^)]+\) with the released openapi\/released\/openapi\.yaml/);
});

t.test('a response property removed within the same major version fails, listing the change', async (t) => {
  const current = contractFile('1.5.0', removeTagColor, tagPaths);
  const report = await checkCompat({ released, current });
  t.match(report.failure, /breaking change.*the gate judges the wire.*2\.0\.0.*--accept-breaking/);
  t.ok(report.breaking.length > 0, 'breaking changes are listed');
  const tags = report.breaking.find((change) => change.where === 'DELETE /tags/{Id}, response 200 body');
  t.ok(tags, 'the operation answering a tag is named');
  t.strictSame(tags?.what, ['Color removed']);
  t.ok(report.breaking.every((change) => change.code === 'response.body.scope.add'), 'classified as a widened response');

  const run = compatCommand(current);
  t.equal(run.status, 1, 'the script exits with 1');
  t.match(run.stderr, `(version 1.5.0) with the released ${released} (version 1.4.2)`, 'it says which versions it compared');
  t.match(run.stderr, 'DELETE /tags/{Id}, response 200 body: Color removed');
  t.match(run.stderr, /FAILED: .*breaking/);
});

t.test('the same change under a new major version still fails: the gate judges the wire', async (t) => {
  const current = contractFile('2.0.0', removeTagColor, tagPaths);
  const report = await checkCompat({ released, current });
  t.match(report.failure, /1 breaking change\(s\): the gate judges the wire, whatever info\.version says \(it is 2\.0\.0\)/);
  t.ok(report.breaking.some((change) => change.what.includes('Color removed')));
  const run = compatCommand(current);
  t.equal(run.status, 1, 'the script exits with 1 without --accept-breaking');
  t.match(run.stderr, /FAILED: .*--accept-breaking/);
});

t.test('accepted with --accept-breaking, it passes under a new major version only', async (t) => {
  const raised = contractFile('2.0.0', removeTagColor, tagPaths);
  const report = await checkCompat({ released, current: raised }, { acceptBreaking: true });
  t.equal(report.failure, undefined);
  t.ok(report.breaking.some((change) => change.what.includes('Color removed')), 'still listed as breaking');
  t.match(formatReport(report), /OK: the breaking changes are accepted \(--accept-breaking\) with a new major version \(1\.4\.2 → 2\.0\.0\)/);
  const run = compatCommand(raised, '--accept-breaking');
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, 'Breaking changes');

  const same = await checkCompat({ released, current: contractFile('1.5.0', removeTagColor, tagPaths) }, { acceptBreaking: true });
  t.match(same.failure, /accepted with --accept-breaking need a new major version: raise info\.version to 2\.0\.0 \(it is 1\.5\.0\)/);

  const fine = await checkCompat({ released, current: contractFile('1.5.0', addTagNote, tagPaths) }, { acceptBreaking: true });
  t.equal(fine.failure, undefined, 'with nothing breaking, the flag changes nothing');
});

t.test('an added optional response property is not breaking and passes', async (t) => {
  const report = await checkCompat({ released, current: contractFile('1.5.0', addTagNote, tagPaths) });
  t.equal(report.failure, undefined);
  t.strictSame(report.breaking, []);
  const tags = report.nonBreaking.find((change) => change.where === 'DELETE /tags/{Id}, response 200 body');
  t.strictSame(tags?.what, ['Note added'], 'listed as non-breaking');
  t.match(formatReport(report), /Non-breaking changes \(\d+\):[^]*Note added[^]*OK: clients generated/);
});

t.test('a working version below the released one fails', async (t) => {
  const report = await checkCompat({ released, current: contractFile('1.4.1', undefined, tagPaths) });
  t.match(report.failure, 'version 1.4.1 is below the released 1.4.2');
});

t.test('a version that is not major.minor.patch is refused', async (t) => {
  await t.rejects(checkCompat({ released, current: contractFile('1.5') }), /info\.version "1\.5" is not a semantic version/);
});

// Each kind of change that breaks a client or a webhook receiver (docs/decisions.md, "Contract
// compatibility"): it fails within the same major version and passes, still listed as breaking,
// when accepted with the major version raised. `text` is one entry of the change's `what`, when
// the kind has one. Each compares copies holding only `paths` (paths and webhooks).
const schemas = (contract: Contract) => contract.components.schemas;
const templates = (contract: Contract) => schemas(contract).CreateMessageTemplate;
const deleteResource = (contract: Contract) => contract.paths['/resource/{Id}'].delete;
const attempts = 'GET /webhook/endpoints/{Id}/messages, response 200 body';
const tagEvent = (contract: Contract) => schemas(contract).TagDeactivatedEvent;
const tagDelivery = (contract: Contract) => contract.webhooks['tag.deactivated'].post;
const breakingCases: { kind: string; paths: string[]; change: (contract: Contract) => void; where: string; text?: string }[] = [
  {
    kind: 'an operation removed',
    paths: ['/tags/{Id}', '/categories'],
    change: (contract) => delete contract.paths['/tags/{Id}'],
    where: '/tags/{Id}',
  },
  {
    kind: 'a request body field removed',
    paths: ['/messages/templates'],
    change: (contract) => delete templates(contract).properties.Sender,
    where: 'POST /messages/templates, request body',
    text: 'Sender removed',
  },
  {
    kind: 'a request body field newly required',
    paths: ['/messages/templates'],
    change: (contract) => templates(contract).required.push('Sender'),
    where: 'POST /messages/templates, request body',
    text: 'Sender now required',
  },
  {
    kind: 'a required request body field added',
    paths: ['/messages/templates'],
    change: (contract) => {
      templates(contract).properties.Note = { type: 'string' };
      templates(contract).required.push('Note');
    },
    where: 'POST /messages/templates, request body',
    text: 'Note added, required',
  },
  {
    kind: 'a request field retyped (string → integer)',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Sender = { type: 'integer' }),
    where: 'POST /messages/templates, request body',
    text: 'Sender: string → integer',
  },
  {
    kind: 'a request field narrowed by a lower maxLength',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Sender.maxLength = 100),
    where: 'POST /messages/templates, request body',
    text: 'Sender: maxLength 254 → 100',
  },
  {
    kind: 'a request field narrowed by a higher minimum',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.TypeId.minimum = 5),
    where: 'POST /messages/templates, request body',
    text: 'TypeId: minimum 1 → 5',
  },
  {
    kind: 'a request field narrowed by a new pattern',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Sender.pattern = '^\\S+@\\S+$'),
    where: 'POST /messages/templates, request body',
    text: 'Sender: pattern none → "^\\\\S+@\\\\S+$"',
  },
  {
    kind: 'a request field narrowed by a new format',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Sender.format = 'email'),
    where: 'POST /messages/templates, request body',
    text: 'Sender: string → string email',
  },
  {
    kind: 'a request field no longer nullable',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Services.type = 'array'),
    where: 'POST /messages/templates, request body',
    text: 'Services: nullable → not nullable',
  },
  {
    kind: 'a request enum value removed',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Language.enum = ['sv']),
    where: 'POST /messages/templates, request body',
    text: 'Language: enum value "en" removed',
  },
  {
    kind: 'a response field retyped (string → integer)',
    paths: ['/tags/{Id}'],
    change: (contract) => (schemas(contract).TagResponse.properties.Color = { type: 'integer' }),
    where: 'DELETE /tags/{Id}, response 200 body',
    text: 'Color: string → integer',
  },
  {
    kind: 'a response field widened by a format removed',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => delete schemas(contract).WebhookMessage.properties.Timestamp.format,
    where: attempts,
    text: 'Results[].Timestamp: string date-time → string',
  },
  {
    kind: 'a response field made nullable',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => (schemas(contract).WebhookMessage.properties.NextAttempt.type = ['string', 'null']),
    where: attempts,
    text: 'Results[].NextAttempt: not nullable → nullable',
  },
  {
    kind: 'a response enum value removed',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => (schemas(contract).WebhookAttempt.properties.Status.enum = ['Success']),
    where: attempts,
    text: 'Results[].Attempts[].Status: enum value "Fail" removed',
  },
  {
    kind: 'an enum value renamed (x-enum-varnames)',
    paths: ['/webhook/endpoints/{Id}/messages', '/messages/templates'],
    change: (contract) => (schemas(contract).SendMethod['x-enum-varnames'] = ['Email', 'Sms']),
    where: 'POST /messages/templates, response 200 body',
    text: 'MessageType.SendMethodId: enum value 2 named SMS → Sms',
  },
  {
    kind: 'a status removed',
    paths: ['/tags/{Id}'],
    change: (contract) => delete contract.paths['/tags/{Id}'].delete.responses['404'],
    where: 'DELETE /tags/{Id}, response 404',
  },
  {
    kind: 'a status changed (200 → 201)',
    paths: ['/tags/{Id}'],
    change: (contract) => {
      const responses = contract.paths['/tags/{Id}'].delete.responses;
      responses['201'] = responses['200'];
      delete responses['200'];
    },
    where: 'DELETE /tags/{Id}, response 200',
  },
  {
    kind: 'a query parameter removed',
    paths: ['/resource/{Id}'],
    change: (contract) => {
      deleteResource(contract).parameters = deleteResource(contract).parameters.filter((p: Json) => p.name !== 'Force');
    },
    where: 'DELETE /resource/{Id}, query parameters',
    text: 'Force removed',
  },
  {
    kind: 'a query parameter newly required',
    paths: ['/resource/{Id}'],
    change: (contract) => (deleteResource(contract).parameters.find((p: Json) => p.name === 'Force').required = true),
    where: 'DELETE /resource/{Id}, query parameters',
    text: 'Force now required',
  },
  {
    kind: 'a required query parameter added',
    paths: ['/resource/{Id}'],
    change: (contract) => {
      deleteResource(contract).parameters.push({ name: 'Reason', in: 'query', required: true, schema: { type: 'string' } });
    },
    where: 'DELETE /resource/{Id}, query parameters',
    text: 'Reason added, required',
  },
  {
    kind: 'a query parameter retyped (string uuid → integer)',
    paths: ['/resource/{Id}'],
    change: (contract) => (deleteResource(contract).parameters.find((p: Json) => p.name === 'CompanyId').schema = { type: 'integer' }),
    where: 'DELETE /resource/{Id}, query parameters',
    text: 'CompanyId: string uuid → integer',
  },
  {
    kind: 'a path parameter narrowed by a lower maxLength',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => (contract.paths['/webhook/endpoints/{Id}/messages'].get.parameters[0].schema.maxLength = 36),
    where: 'GET /webhook/endpoints/{Id}/messages, path parameters',
    text: 'Id: maxLength 100 → 36',
  },
  {
    kind: 'a shared parameter narrowed by a new maximum',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => (contract.components.parameters.Take.schema.maximum = 1000),
    where: 'GET /webhook/endpoints/{Id}/messages, query parameters',
    text: 'Take: maximum none → 1000',
  },
  {
    kind: 'a parameter enum value removed',
    paths: ['/tags/{Id}'],
    change: (contract) => (contract.components.parameters.Format.schema.enum = ['json']),
    where: 'DELETE /tags/{Id}, query parameters',
    text: 'format: enum value "csv" removed',
  },
  {
    kind: "an event's own field removed (timestamp)",
    paths: ['tag.deactivated'],
    change: (contract) => {
      delete tagEvent(contract).properties.timestamp;
      tagEvent(contract).required = tagEvent(contract).required.filter((name: string) => name !== 'timestamp');
    },
    where: 'webhook tag.deactivated, body',
    text: 'timestamp removed',
  },
  {
    kind: "a field of an event's data removed",
    paths: ['rebatecode.transaction.created'],
    change: (contract) => delete schemas(contract).RebateCodeTransactionQueryResponse.properties.Amount,
    where: 'webhook rebatecode.transaction.created, body',
    text: 'data.RebateCodeTransactionItem.Amount removed',
  },
  {
    kind: "a field of an event's data newly required (the events recorded before lack it)",
    paths: ['tag.deactivated'],
    change: (contract) => {
      schemas(contract).TagResponse.properties.Note = { type: 'string' };
      schemas(contract).TagResponse.required.push('Note');
    },
    where: 'webhook tag.deactivated, body',
    text: 'data.Note added, required',
  },
  {
    kind: "a field of an event's data made nullable",
    paths: ['tag.deactivated'],
    change: (contract) => (schemas(contract).TagResponse.properties.Name.type = ['string', 'null']),
    where: 'webhook tag.deactivated, body',
    text: 'data.Name: not nullable → nullable',
  },
  {
    kind: "a field of an event's data removed, in a message's Payload",
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: removeTagColor,
    where: attempts,
    text: 'Results[].Payload.data.Color removed',
  },
  {
    kind: "an event removed from WebhookEvent, a message's Payload",
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => {
      const events = schemas(contract).WebhookEvent;
      events.oneOf = events.oneOf.filter((event: Json) => !event.$ref.endsWith('/TagDeactivatedEvent'));
      delete events.discriminator.mapping['tag.deactivated'];
    },
    where: attempts,
    text: 'Results[].Payload: oneOf alternative TagDeactivatedEvent removed',
  },
  {
    kind: 'an event type removed',
    paths: ['tag.deactivated', 'resource.deleted'],
    change: (contract) => delete contract.webhooks['resource.deleted'],
    where: 'webhook resource.deleted',
    text: 'the event removed',
  },
  {
    kind: "a webhook's header removed",
    paths: ['tag.deactivated'],
    change: (contract) => {
      tagDelivery(contract).parameters = tagDelivery(contract).parameters.filter((p: Json) => !p.$ref.endsWith('/WebhookSignature'));
    },
    where: 'webhook tag.deactivated, header parameters',
    text: 'webhook-signature removed',
  },
];

for (const { kind, paths, change, where, text } of breakingCases) {
  t.test(`breaking: ${kind}`, async (t) => {
    const releasedHere = contractFile('1.4.2', () => {}, paths);
    const listed = (report: Awaited<ReturnType<typeof checkCompat>>) =>
      report.breaking.find((c) => c.where === where && (text === undefined || c.what.includes(text)));

    const same = await checkCompat({ released: releasedHere, current: contractFile('1.5.0', change, paths) });
    t.match(same.failure, /breaking change.*2\.0\.0/, 'fails within the major version');
    t.ok(listed(same), `listed as breaking: ${where}${text ? `: ${text}` : ''}\n${formatReport(same)}`);
    const alsoFine = same.nonBreaking.some((c) => c.where === where && text !== undefined && c.what.includes(text));
    t.notOk(alsoFine, 'not also listed as non-breaking');

    const accepted = await checkCompat({ released: releasedHere, current: contractFile('2.0.0', change, paths) }, { acceptBreaking: true });
    t.equal(accepted.failure, undefined, 'passes when accepted with the major version raised');
    t.ok(listed(accepted), 'still listed as breaking');
  });
}

// Additions a client generated from the released contract does not notice.
const nonBreakingCases: { kind: string; paths: string[]; change: (contract: Contract) => void; where: string; text?: string }[] = [
  {
    kind: 'an optional request body field added',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Note = { type: 'string', maxLength: 100 }),
    where: 'POST /messages/templates, request body',
    text: 'Note added',
  },
  {
    kind: 'an optional query parameter added',
    paths: ['/resource/{Id}'],
    change: (contract) => deleteResource(contract).parameters.push({ name: 'Reason', in: 'query', schema: { type: 'string' } }),
    where: 'DELETE /resource/{Id}, query parameters',
    text: 'Reason added',
  },
  {
    kind: 'an operation added',
    paths: ['/tags/{Id}', '/tags'],
    change: (contract) => {
      contract.paths['/tags'] = { get: { ...contract.paths['/tags/{Id}'].delete, operationId: 'TagQuery', parameters: [] } };
    },
    where: '/tags',
  },
  {
    kind: 'a request enum value added',
    paths: ['/messages/templates'],
    change: (contract) => templates(contract).properties.Language.enum.push('de'),
    where: 'POST /messages/templates, request body',
    text: 'Language: enum value "de" added',
  },
  {
    kind: 'a request field widened by a higher maxLength',
    paths: ['/messages/templates'],
    change: (contract) => (templates(contract).properties.Sender.maxLength = 320),
    where: 'POST /messages/templates, request body',
    text: 'Sender: maxLength 254 → 320',
  },
  {
    // Strict clients may refuse a value they do not know, but only removals break
    // (docs/decisions.md, "Contract compatibility"): listed for review, and it passes.
    kind: 'a response enum value added',
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => schemas(contract).WebhookAttempt.properties.Status.enum.push('Timeout'),
    where: attempts,
    text: 'Results[].Attempts[].Status: enum value "Timeout" added',
  },
  {
    kind: 'an event type added',
    paths: ['tag.deactivated', 'tag.created'],
    change: (contract) => (contract.webhooks['tag.created'] = structuredClone(contract.webhooks['tag.deactivated'])),
    where: 'webhook tag.created',
    text: 'the event added',
  },
  {
    kind: "an event added to WebhookEvent, a message's Payload",
    paths: ['/webhook/endpoints/{Id}/messages'],
    change: (contract) => {
      const created = structuredClone(tagEvent(contract));
      created.properties.type.const = 'tag.created';
      schemas(contract).TagCreatedEvent = created;
      schemas(contract).WebhookEvent.oneOf.push({ $ref: '#/components/schemas/TagCreatedEvent' });
      schemas(contract).WebhookEvent.discriminator.mapping['tag.created'] = '#/components/schemas/TagCreatedEvent';
      schemas(contract).WebhookEventType.enum.push('tag.created');
    },
    where: attempts,
    text: 'Results[].Payload: oneOf alternative TagCreatedEvent added',
  },
  {
    kind: 'an optional field added to an event',
    paths: ['tag.deactivated'],
    change: (contract) => (tagEvent(contract).properties.Note = { type: 'string' }),
    where: 'webhook tag.deactivated, body',
    text: 'Note added',
  },
];

for (const { kind, paths, change, where, text } of nonBreakingCases) {
  t.test(`not breaking: ${kind}`, async (t) => {
    const report = await checkCompat({ released: contractFile('1.4.2', () => {}, paths), current: contractFile('1.5.0', change, paths) });
    t.equal(report.failure, undefined, 'passes within the major version');
    t.strictSame(report.breaking, [], formatReport(report));
    t.ok(
      report.nonBreaking.find((c) => c.where === where && (text === undefined || c.what.includes(text))),
      `listed as non-breaking: ${where}${text ? `: ${text}` : ''}`,
    );
  });
}

t.test('the schema rules, side by side', async (t) => {
  const same = (node: unknown) => node as Record<string, unknown>;
  const judge = (direction: Direction, before: object, after: object) =>
    compareSchemas(before, after, direction, { before: same, after: same }).map(
      ({ text, breaking }) => `${breaking ? 'breaking' : 'fine'}: ${text}`,
    );
  const int32 = { type: 'integer', format: 'int32' };
  const int64 = { type: 'integer', format: 'int64' };
  t.strictSame(judge('request', int32, int64), ['fine: the body: integer int32 → integer int64'], 'a wider format accepts more');
  t.strictSame(judge('response', int32, int64), ['breaking: the body: integer int32 → integer int64'], 'and answers more');
  t.strictSame(judge('request', int64, { type: 'number' }), ['fine: the body: integer int64 → number']);
  t.strictSame(judge('request', { type: 'number' }, int32), ['breaking: the body: number → integer int32']);
  t.strictSame(judge('request', { type: 'string', format: 'date-time' }, { type: 'string', format: 'uuid' }), [
    'breaking: the body: string date-time → string uuid',
  ]);
  t.strictSame(judge('response', { type: 'string', maxLength: 10 }, { type: 'string', maxLength: 5 }), [
    'fine: the body: maxLength 10 → 5',
  ]);
  t.strictSame(judge('request', { type: 'array', items: int32 }, { type: 'array', items: int32, maxItems: 5, uniqueItems: true }), [
    'breaking: the body: maxItems none → 5',
    'breaking: the body: uniqueItems false → true',
  ]);
  t.strictSame(judge('request', { type: 'object' }, { type: 'object', additionalProperties: false }), [
    'breaking: the body: additionalProperties true → false',
  ]);
  t.strictSame(judge('request', { anyOf: [int32] }, { anyOf: [int32, { type: 'string' }] }), ['fine: the body: anyOf of 1 → 2 schemas']);
  t.strictSame(judge('response', { anyOf: [int32] }, { anyOf: [int32, { type: 'string' }] }), [
    'breaking: the body: anyOf of 1 → 2 schemas',
  ]);
  t.strictSame(judge('request', { type: 'string' }, { type: 'string', enum: ['a'] }), ['breaking: the body: any value → enum ["a"]']);
  t.strictSame(judge('response', { type: 'string', enum: ['a'] }, { type: 'string' }), ['breaking: the body: enum ["a"] → any value']);
  const a = { type: 'object', properties: { A: int32 } };
  t.strictSame(judge('response', a, { type: 'object', properties: { A: int32, B: int32 }, required: ['B'] }), [
    'fine: B added, required',
  ]);
  t.strictSame(judge('response', { ...a, required: ['A'] }, a), [
    'breaking: A no longer required',
  ]);
  const described = { type: 'object', properties: { A: { ...int32, description: 'x' } } };
  t.strictSame(judge('request', described, { type: 'object', properties: { A: { ...int32, example: 1 } } }), [], 'words alone change nothing');
  t.strictSame(judge('request', { type: 'object', patternProperties: {} }, { type: 'object', patternProperties: { '^a': int32 } }), [
    'breaking: the body: patternProperties changed',
  ], 'a keyword the rules do not read counts as breaking');

  // A schema that becomes one of several is compared with their union: enum values pooled,
  // the properties all of them declare, each bound at its loosest.
  const typed = (types: string[], data: object) => ({
    type: 'object', required: ['type', 'data'], properties: { type: { type: 'string', enum: types }, data },
  });
  const event = typed(['a', 'b'], { type: 'object' });
  const [a1, b1] = [typed(['a'], { type: 'object', properties: { A: int32 } }), typed(['b'], { type: 'object', properties: { B: int32 } })];
  const events = { oneOf: [a1, b1] };
  t.strictSame(judge('response', event, events), ['fine: the body: oneOf of 0 → 2 schemas'], 'typed alternatives narrow an answer');
  t.strictSame(judge('request', event, events), ['breaking: the body: oneOf of 0 → 2 schemas'], 'and a request');
  t.strictSame(judge('response', events, event), ['breaking: the body: oneOf of 2 → 0 schemas']);
  t.strictSame(judge('response', event, { oneOf: [typed(['a'], { type: 'object' })] }), [
    'fine: the body: oneOf of 0 → 1 schemas',
    'breaking: type: enum value "b" removed',
  ], 'a value no alternative has is removed');
  t.strictSame(judge('response', { ...event, properties: { ...event.properties, At: { type: 'string' } } }, events), [
    'fine: the body: oneOf of 0 → 2 schemas',
    'breaking: At removed',
  ], 'a field that not every alternative has is removed');
  const nullable = { oneOf: [typed(['a'], { type: 'object' }), { ...typed(['b'], { type: 'object' }), nullable: true }] };
  t.strictSame(judge('response', event, nullable), [
    'fine: the body: oneOf of 0 → 2 schemas',
    'breaking: the body: not nullable → nullable',
  ], 'a value one alternative allows is allowed');
});

t.test('references are followed inside the contract only', async (t) => {
  const contract = parse(contractText) as Contract;
  const deref = localRefs(contract);
  t.equal(deref({ $ref: '#/components/schemas/TagResponse' }), contract.components.schemas.TagResponse);
  t.equal(deref({ $ref: '#/components/parameters/Format' }), contract.components.parameters.Format);
  t.throws(() => deref({ $ref: 'other.yaml#/components/schemas/X' }), /only references inside the contract/);
  t.throws(() => deref({ $ref: '#/components/schemas/Missing' }), /names nothing/);
  const copy = toOpenApi30(contract);
  t.strictSame(compareDocuments(copy, toOpenApi30(parse(contractText) as Contract)), [], 'the contract has no differences from itself');
});
