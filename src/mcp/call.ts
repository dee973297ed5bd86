import type { FastifyInstance, InjectOptions } from 'fastify';
import type { McpTool } from './tools.js';

/**
 * A tool call runs as a request to the operation's own route, injected in process with the
 * caller's Authorization header and address (docs/decisions.md, "The MCP server"): the same
 * authentication, roles, company scoping, binding, validation, rate limits, handler, webhook
 * event and error mapping as over HTTP, so a refusal reads as it does there. Nothing of the
 * arguments is checked here; they are only put where the contract puts each field.
 */

export interface OperationAnswer {
  /** the HTTP status the operation answered */
  status: number;
  /** the answer's body as the API sent it: the JSON text of its result or of its ResponseStatus */
  text: string;
  /** the text is a JSON object, the result's structured content */
  object: boolean;
}

export interface Sender {
  /** the caller's Authorization header, as it came */
  authorization: string;
  /** the caller's address, which the operation's rate limits count */
  address: string;
}

type Arguments = Record<string, unknown>;

const valueOf = (value: unknown) => (typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Query-string pairs of an argument: a list repeats its name, a map is written `Name[key]=value` (deepObject). */
function appendQuery(query: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) if (item !== undefined && item !== null) query.append(name, valueOf(item));
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) query.append(`${name}[${key}]`, valueOf(item));
  } else {
    query.append(name, String(value));
  }
}

/** A path segment for a path parameter; its dots escaped too, so that a `.csv` suffix asks for no other format. */
const segment = (value: string | number) => encodeURIComponent(String(value)).replace(/\./g, '%2E');

/** A value a path segment can carry: `.` and `..` would be read as steps up the path, escaped or not. */
const isSegmentValue = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '' && value !== '.' && value !== '..') || (typeof value === 'number' && Number.isFinite(value));

/**
 * The request of a call. Path parameters go into the operation's path, query parameters
 * into the query string, anything else into the JSON body where the operation takes one
 * (else the query string, where ServiceStack's binding reads or ignores it as over HTTP).
 * When a path parameter is missing or no value a path segment can carry, the call goes to
 * the operation's predefined route (`/api/{OperationId}`) with it in the query string, so
 * the operation itself reads or refuses it as it would there over HTTP. The `format`
 * argument is not passed on: the MCP layer reads JSON.
 */
export function operationRequest(tool: McpTool, args: Arguments, sender: Sender): InjectOptions {
  const query = new URLSearchParams();
  const body: Arguments = {};
  const { params, queryNames } = lookupOf(tool);
  const pathValues = new Map<string, unknown>();
  for (const [name, value] of Object.entries(args)) {
    const lower = name.toLowerCase();
    if (lower === 'format') continue;
    if (params.has(lower)) pathValues.set(params.get(lower)!, value);
    else if (queryNames.has(lower) || !tool.hasBody) appendQuery(query, name, value);
    else body[name] = value;
  }
  let path = tool.path;
  if (tool.pathParams.every((name) => isSegmentValue(pathValues.get(name)))) {
    path = path.replace(/\{([^}]+)\}/g, (_match, name: string) => segment(pathValues.get(name) as string | number));
  } else {
    path = `/api/${tool.definition.name}`;
    for (const [name, value] of pathValues) appendQuery(query, name, value);
  }
  const search = query.toString();
  const payload = tool.hasBody ? JSON.stringify(body) : undefined;
  return {
    method: tool.method as InjectOptions['method'],
    url: search ? `${path}?${search}` : path,
    headers: {
      authorization: sender.authorization,
      accept: 'application/json',
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload !== undefined ? { payload } : {}),
    remoteAddress: sender.address,
  };
}

/** Each tool's parameter names by their lower case, made at its first call. */
const lookups = new WeakMap<McpTool, { params: Map<string, string>; queryNames: Set<string> }>();
function lookupOf(tool: McpTool) {
  let lookup = lookups.get(tool);
  if (!lookup) {
    lookup = { params: new Map(tool.pathParams.map((name) => [name.toLowerCase(), name])), queryNames: new Set(tool.queryParams.map((name) => name.toLowerCase())) };
    lookups.set(tool, lookup);
  }
  return lookup;
}

/**
 * Runs a call through the operation's route and reads its answer. The text is not parsed: it
 * goes into the result as it is, as its text and as its structured content (answers.ts).
 */
export async function runOperation(app: FastifyInstance, tool: McpTool, args: Arguments, sender: Sender): Promise<OperationAnswer> {
  const response = await app.inject(operationRequest(tool, args, sender));
  const text = response.body;
  // The API's JSON answers are written by its serializers, an object starting with its brace.
  const object = String(response.headers['content-type'] ?? '').startsWith('application/json') && text.charCodeAt(0) === 0x7b;
  return { status: response.statusCode, text, object };
}
