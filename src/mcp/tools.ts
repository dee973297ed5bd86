import { SchemaConverter, type JsonSchema } from './json-schema.js';

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
  /** the operation's method and path template, which a call is sent to */
  method: string;
  path: string;
  /** the contract names of its path and query parameters; any other argument is a body field */
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
  /** the roles of which a caller needs one to see and call it (`x-roles`); empty: any caller */
  roles: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** The answer's format is the MCP layer's choice (JSON): the operations' `format` parameter is no argument. */
const FORMAT_PARAMETER = 'format';

type Operation = Record<string, any>;

/** A `$ref` to a component of another kind than schemas (parameters, request bodies, responses), resolved. */
function component(document: Record<string, any>, node: any): any {
  const ref = node?.$ref;
  if (typeof ref !== 'string') return node;
  const match = /^#\/components\/(parameters|requestBodies|responses)\/([^/]+)$/.exec(ref);
  const target = match ? document.components?.[match[1]]?.[match[2]] : undefined;
  if (target === undefined) throw new Error(`MCP tools cannot resolve ${ref}`);
  return component(document, target);
}

/** The annotations of an operation: derived from its method, then its `x-mcp` object. */
function annotationsOf(method: string, operation: Operation): ToolAnnotations {
  const derived: ToolAnnotations =
    method === 'get'
      ? { readOnlyHint: true, openWorldHint: false }
      : {
          readOnlyHint: false,
          // A DELETE removes or deactivates, a PUT replaces what was there; a POST adds.
          destructiveHint: method === 'delete' || method === 'put',
          idempotentHint: method === 'delete' || method === 'put',
          openWorldHint: false,
        };
  const override = operation['x-mcp'];
  return typeof override === 'object' && override !== null ? { ...derived, ...override } : derived;
}

function inputOf(document: Record<string, any>, parameters: any[], operation: Operation) {
  const converter = new SchemaConverter(document);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  const taken = new Set<string>();
  for (const parameter of parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    if (parameter.name.toLowerCase() === FORMAT_PARAMETER) continue;
    const schema = converter.convert(parameter.schema ?? {});
    properties[parameter.name] = parameter.description && !schema.description ? { ...schema, description: parameter.description.trim() } : schema;
    if (parameter.required) required.push(parameter.name);
    (parameter.in === 'path' ? pathParams : queryParams).push(parameter.name);
    taken.add(parameter.name.toLowerCase());
  }
  const requestBody = operation.requestBody ? component(document, operation.requestBody) : undefined;
  const bodySchema = requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const body = converter.resolve(bodySchema);
    if (!body.properties) throw new Error(`MCP tools need an object body with properties (${operation.operationId})`);
    // A name that is also a parameter binds as the parameter (path over query over body).
    for (const [name, schema] of Object.entries(body.properties as Record<string, unknown>)) {
      if (!taken.has(name.toLowerCase())) properties[name] = converter.convert(schema);
    }
    if (requestBody.required) required.push(...((body.required as string[] | undefined) ?? []).filter((name) => !taken.has(name.toLowerCase())));
  }
  const inputSchema: ToolDefinition['inputSchema'] = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  if (Object.keys(converter.defs).length > 0) inputSchema.$defs = converter.defs;
  return { inputSchema, pathParams, queryParams, hasBody: Boolean(bodySchema) };
}

function outputOf(document: Record<string, any>, operation: Operation): ToolDefinition['outputSchema'] {
  const ok = operation.responses?.['200'] ? component(document, operation.responses['200']) : undefined;
  const schema = ok?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const converter = new SchemaConverter(document);
  const root = converter.convert(converter.resolve(schema));
  // MCP's structured results are objects; another answer is given as text alone.
  if (root.type !== 'object') return undefined;
  if (Object.keys(converter.defs).length > 0) root.$defs = converter.defs;
  return root as ToolDefinition['outputSchema'];
}

/** The tools of a contract document, in the document's order; a hidden operation (`x-mcp: false`) has none. */
export function mcpTools(document: Record<string, any>): McpTool[] {
  const tools: McpTool[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation?.operationId || operation['x-mcp'] === false) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => component(document, p));
      const { inputSchema, pathParams, queryParams, hasBody } = inputOf(document, parameters, operation);
      const definition: ToolDefinition = {
        name: operation.operationId,
        ...(operation.summary ? { title: String(operation.summary).trim() } : {}),
        ...(operation.description ? { description: String(operation.description).trim() } : {}),
        inputSchema,
        annotations: annotationsOf(method, operation),
      };
      const outputSchema = outputOf(document, operation);
      if (outputSchema) definition.outputSchema = outputSchema;
      tools.push({ definition, method: method.toUpperCase(), path, pathParams, queryParams, hasBody, roles: operation['x-roles'] ?? [] });
    }
  }
  return tools;
}
