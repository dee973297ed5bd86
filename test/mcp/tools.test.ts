import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import t from 'tap';
import { countTokens } from '../../src/mcp/metering.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';
import { SUPERADMIN, buildTestApp } from '../helper.js';
import { postMcp, rpcMessage } from './client.js';

// The tools generated from the contract (docs/decisions.md, "The MCP server"): one per
// operation, named by its operationId, its schemas in JSON Schema 2020-12; what `tools/list`
// answers is checked in as a snapshot, within a size budget.

const SNAPSHOT = new URL('./tools-list.snapshot.json', import.meta.url);
/**
 * The whole `tools/list` of a caller who sees every tool, in o200k_base tokens. A quarter of
 * it is WebhookEndpointMessageQuery's answer, which types each event's `data`.
 */
const TOKEN_BUDGET = 25_000;

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
(formats as unknown as (ajv: Ajv2020) => void)(ajv);

/** Every `$ref` in a schema. */
function refs(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refs(value)));
}

t.test('one tool per operation of the contract but those marked x-mcp: false, named by its operationId, with its summary and description', async (t) => {
  const tools = mcpTools(contract().document);
  const operations = [...contract().operations.values()];
  t.strictSame(tools.map((tool) => tool.definition.name).sort(), operations.filter((op) => op.mcp).map((op) => op.operationId).sort());
  t.strictSame(operations.filter((op) => !op.mcp).map((op) => op.operationId).sort(), ['DeleteMcpGrant', 'McpGrantQuery'], 'no assistant sees or revokes grants');
  for (const tool of tools) {
    const { path, method } = contract().operations.get(tool.definition.name)!;
    const op = contract().document.paths[path][method.toLowerCase()];
    t.equal(tool.definition.title, op.summary.trim(), `${tool.definition.name}: title`);
    t.equal(tool.definition.description, op.description.trim(), `${tool.definition.name}: description`);
    t.equal(tool.definition.inputSchema.type, 'object');
    t.equal(tool.definition.outputSchema?.type, 'object', `${tool.definition.name}: an object answer`);
  }
});

t.test('every schema is valid JSON Schema 2020-12 whose only references are its own $defs', async (t) => {
  for (const { definition } of mcpTools(contract().document)) {
    for (const [part, schema] of [['input', definition.inputSchema], ['output', definition.outputSchema]] as const) {
      t.doesNotThrow(() => ajv.compile(schema!), `${definition.name}: the ${part} schema compiles (strict)`);
      const outside = refs(schema).filter((ref) => !ref.startsWith('#/$defs/') || !(ref.slice(8) in ((schema!.$defs as object) ?? {})));
      t.strictSame(outside, [], `${definition.name}: ${part} references`);
      t.notMatch(JSON.stringify(schema), /"nullable"|"x-[a-z-]+"|"example"/, `${definition.name}: no OpenAPI-only keywords in the ${part}`);
    }
  }
});

t.test('no MCP code reads a keyword of OpenAPI 3.0: the contract is JSON Schema 2020-12 already', async (t) => {
  const folder = new URL('../../src/mcp/', import.meta.url);
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    t.notMatch(readFileSync(new URL(file, folder), 'utf8'), /nullable|exclusiveMinimum|'example'/, `src/mcp/${file}`);
  }
});

t.test('the arguments: path, query and body fields under their contract names; no format', async (t) => {
  const byName = new Map(mcpTools(contract().document).map((tool) => [tool.definition.name, tool]));
  const webhook = byName.get('UpdateWebhookEndpoint')!;
  t.strictSame([webhook.pathParams, webhook.queryParams, webhook.hasBody], [['Id'], ['CompanyId'], true]);
  t.strictSame(webhook.definition.inputSchema.required, ['Id', 'CompanyId', 'Url', 'EventTypes']);
  t.ok(['Id', 'CompanyId', 'Url', 'EventTypes', 'Description', 'Disabled'].every((name) => name in (webhook.definition.inputSchema.properties as object)));
  for (const tool of byName.values()) t.notOk('format' in (tool.definition.inputSchema.properties as object), `${tool.definition.name}: no format argument`);
  const printouts = byName.get('BookingPrintoutQuery')!.definition.inputSchema.properties as Record<string, any>;
  t.strictSame(printouts.Skip.type, ['integer', 'null'], 'nullable is a type that admits null');
  t.match(printouts.CompanyId, { type: 'string', format: 'uuid', description: String }, 'a parameter keeps its description');
});

t.test('annotations follow the method: reads are read-only, deletes and replacements destructive and idempotent, no tool open-world', async (t) => {
  const annotations = Object.fromEntries(mcpTools(contract().document).map((tool) => [tool.definition.name, tool.definition.annotations]));
  t.strictSame(annotations.CategoryQuery, { readOnlyHint: true, openWorldHint: false });
  t.strictSame(annotations.DeleteTag, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  t.strictSame(annotations.UpdateWebhookEndpoint, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  t.strictSame(annotations.CreateMessageTemplate, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
});

t.test('an operation added to the contract is a tool; x-mcp overrides its annotations or hides it', async (t) => {
  const document = structuredClone(contract().document);
  document.paths['/notes/{Id}'] = {
    put: {
      operationId: 'UpdateNote',
      summary: 'Update a note',
      description: 'Replaces the note.',
      'x-mcp': { destructiveHint: false },
      parameters: [{ name: 'Id', in: 'path', required: true, schema: { type: 'integer' } }, { $ref: '#/components/parameters/Format' }],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
      responses: { '200': { description: 'The note.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } } },
    },
  };
  document.components.schemas.Note = {
    type: 'object',
    required: ['Text'],
    properties: { Text: { type: ['string', 'null'] }, Kind: { type: ['integer', 'null'], enum: [1, 2, null] }, Parent: { $ref: '#/components/schemas/Note' } },
  };
  document.paths['/categories'].get['x-mcp'] = false;
  const tools = mcpTools(document);
  t.notOk(tools.some((tool) => tool.definition.name === 'CategoryQuery'), 'x-mcp: false hides the operation');
  const note = tools.find((tool) => tool.definition.name === 'UpdateNote')!;
  t.strictSame(note.definition.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  t.strictSame(note.definition.inputSchema, {
    type: 'object',
    properties: {
      Id: { type: 'integer' },
      Text: { type: ['string', 'null'] },
      Kind: { type: ['integer', 'null'], enum: [1, 2, null] },
      Parent: { $ref: '#/$defs/Note' },
    },
    required: ['Id', 'Text'],
    $defs: { Note: { type: 'object', required: ['Text'], properties: { Text: { type: ['string', 'null'] }, Kind: { type: ['integer', 'null'], enum: [1, 2, null] }, Parent: { $ref: '#/$defs/Note' } } } },
  }, 'a schema that refers to itself becomes one $defs entry');
  t.doesNotThrow(() => ajv.compile(note.definition.outputSchema!));
  document.components.schemas.Note.properties.Parent = { $ref: 'https://example.org/note.json' };
  t.throws(() => mcpTools(document), /can only refer to #\/components\/schemas/, 'a reference outside the document stops start-up');
});

t.test(`the tools/list snapshot, within ${TOKEN_BUDGET} o200k_base tokens`, async (t) => {
  const api = await buildTestApp(t, { as: [SUPERADMIN] });
  const { tools } = rpcMessage(await postMcp(api, 'tools/list', {}, { as: [SUPERADMIN] })).result;
  const text = `${JSON.stringify(tools, null, 2)}\n`;
  // After a change of the contract: MCP_TOOLS_SNAPSHOT=update npx tap test/mcp/tools.test.ts
  if (process.env.MCP_TOOLS_SNAPSHOT === 'update') writeFileSync(SNAPSHOT, text);
  t.strictSame(tools, JSON.parse(readFileSync(SNAPSHOT, 'utf8')), 'tools/list is the checked-in snapshot (MCP_TOOLS_SNAPSHOT=update rewrites it)');
  const tokens = await countTokens(JSON.stringify({ tools }));
  t.ok(tokens < TOKEN_BUDGET, `tools/list is ${tokens} tokens`);
});
