import { IDEMPOTENCY_KEY } from '../executor/idempotency.js';
import { operationTable, type OperationFacts } from '../contract/operations.js';
import { SchemaBundler, type JsonSchema } from './json-schema.js';

/**
 * The MCP tools, one per operation of the contract, read from the document at start-up
 * (docs/decisions.md, "The MCP server"): an operation added to the contract is a tool with no
 * MCP code. A tool is named by its operationId, described by the operation's summary and
 * description, takes its path, query and body fields as one object under their contract
 * names, and answers the operation's 200 schema. `x-mcp: false` on an operation hides it;
 * an `x-mcp` object overrides the annotations derived from the method.
 */

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What `tools/list` shows of a tool. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
}

export interface McpTool {
  definition: ToolDefinition;
  /** the contract names of its path and query parameters; any other argument is a body field */
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
  /** the roles of which a caller needs one to see and call it (`x-roles`); empty: any caller */
  roles: readonly string[];
  /** the operation the tool runs */
  facts: OperationFacts;
}

/** A write's Idempotency-Key as a tool's argument. */
export const IDEMPOTENCY_ARGUMENT = 'IdempotencyKey';
const KEY_DESCRIPTION =
  'Makes a retry safe: a call with the key of an earlier call of the company runs once, and a retry gets the first answer again. ' +
  'Make a new key (a UUID) for each new change; when you retry the same change because its answer was lost, send it again with the same key and the same arguments. ' +
  '1 to 255 visible ASCII characters; kept for 24 hours.';

/** The answer's format is the MCP layer's choice (JSON): the operations' `format` parameter is no argument. */
const FORMAT_PARAMETER = 'format';

/** The annotations of an operation: derived from its method, then its `x-mcp` object. */
function annotationsOf(facts: OperationFacts): ToolAnnotations {
  const derived: ToolAnnotations =
    facts.method === 'GET'
      ? { readOnlyHint: true, openWorldHint: false }
      : {
          readOnlyHint: false,
          // A DELETE removes or deactivates, a PUT replaces what was there; a POST adds.
          destructiveHint: facts.method === 'DELETE' || facts.method === 'PUT',
          idempotentHint: facts.method === 'DELETE' || facts.method === 'PUT',
          openWorldHint: false,
        };
  return typeof facts.mcp === 'object' ? { ...derived, ...facts.mcp } : derived;
}

function inputOf(document: Record<string, any>, facts: OperationFacts) {
  const bundler = new SchemaBundler(document);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  const taken = new Set<string>();
  for (const parameter of facts.parameters) {
    if (parameter.in === 'header' && parameter.name === IDEMPOTENCY_KEY) {
      // The header is an argument of its own: a call with it behaves as the write with the header.
      properties[IDEMPOTENCY_ARGUMENT] = { ...bundler.bundle(parameter.schema ?? {}), description: KEY_DESCRIPTION };
      continue;
    }
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    if (parameter.name.toLowerCase() === FORMAT_PARAMETER) continue;
    const schema = bundler.bundle(parameter.schema ?? {});
    properties[parameter.name] = parameter.description && !schema.description ? { ...schema, description: parameter.description.trim() } : schema;
    if (parameter.required) required.push(parameter.name);
    (parameter.in === 'path' ? pathParams : queryParams).push(parameter.name);
    taken.add(parameter.name.toLowerCase());
  }
  const bodySchema = facts.rawBody;
  if (bodySchema) {
    const body = bundler.resolve(bodySchema);
    if (!body.properties) throw new Error(`MCP tools need an object body with properties (${facts.operationId})`);
    // A name that is also a parameter binds as the parameter (path over query over body).
    for (const [name, schema] of Object.entries(body.properties as Record<string, unknown>)) {
      if (!taken.has(name.toLowerCase())) properties[name] = bundler.bundle(schema);
    }
    if (facts.bodyRequired) required.push(...((body.required as string[] | undefined) ?? []).filter((name) => !taken.has(name.toLowerCase())));
  }
  const inputSchema: ToolDefinition['inputSchema'] = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  if (Object.keys(bundler.defs).length > 0) inputSchema.$defs = bundler.defs;
  return { inputSchema, pathParams, queryParams, hasBody: Boolean(bodySchema) };
}

function outputOf(document: Record<string, any>, facts: OperationFacts): ToolDefinition['outputSchema'] {
  const schema = facts.rawOk;
  if (!schema) return undefined;
  const bundler = new SchemaBundler(document);
  const root = bundler.bundle(bundler.resolve(schema));
  // MCP's structured results are objects; another answer is given as text alone.
  if (root.type !== 'object') return undefined;
  if (Object.keys(bundler.defs).length > 0) root.$defs = bundler.defs;
  return root as ToolDefinition['outputSchema'];
}

/** The tools of a contract document, in the document's order; a hidden operation (`x-mcp: false`) has none. */
export function mcpTools(document: Record<string, any>): McpTool[] {
  return operationTable(document)
    .filter((facts) => facts.mcp !== false)
    .map((facts) => {
      const { inputSchema, pathParams, queryParams, hasBody } = inputOf(document, facts);
      const definition: ToolDefinition = {
        name: facts.operationId,
        ...(facts.summary ? { title: facts.summary } : {}),
        ...(facts.description ? { description: facts.description } : {}),
        inputSchema,
        annotations: annotationsOf(facts),
      };
      const outputSchema = outputOf(document, facts);
      if (outputSchema) definition.outputSchema = outputSchema;
      return { definition, pathParams, queryParams, hasBody, roles: facts.roles, facts };
    });
}
