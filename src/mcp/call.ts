import type { OperationInput } from '../executor/run.js';
import { MAX_PATH_PARAMETER } from '../http/errors.js';
import { parseQueryString } from '../http/reading.js';
import { IDEMPOTENCY_ARGUMENT, type McpTool } from './tools.js';

const KEY_ARGUMENT = IDEMPOTENCY_ARGUMENT.toLowerCase();

/**
 * The parts of the operation's request that a tool call's arguments make, each field where
 * the contract puts it (docs/decisions.md, "The MCP server"). Nothing of the arguments is
 * checked here: the executor binds and validates them as it does an HTTP request.
 */

/** The request a tool call makes, as the router and the parsers would have left it. */
export interface ToolInput extends OperationInput {
  /** a path value is longer than the router takes (maxParamLength) */
  pathTooLong: boolean;
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

/** A value a path segment can carry: `.` and `..` would be read as steps up the path, escaped or not. */
const isSegmentValue = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '' && value !== '.' && value !== '..') || (typeof value === 'number' && Number.isFinite(value));

/**
 * The request of a call. Path parameters are the path's, query parameters go into the query
 * string, anything else into the JSON body where the operation takes one (else the query
 * string, where ServiceStack's binding reads or ignores it as over HTTP). When a path
 * parameter is missing or no value a path segment can carry, the call is the operation's
 * predefined route (`/api/{OperationId}`): no path parameters, and the values in the query
 * string, where the operation reads or refuses them as it would there over HTTP. The query
 * string is written as a client writes it and read by the server's parser, so each value
 * arrives as text, as over HTTP. The `format` argument is not passed on: the MCP layer reads JSON.
 */
export function operationInput(tool: McpTool, args: Arguments): ToolInput {
  const query = new URLSearchParams();
  const body: Arguments = {};
  const { params, queryNames } = lookupOf(tool);
  const pathValues = new Map<string, unknown>();
  let idempotencyKey: unknown;
  for (const [name, value] of Object.entries(args)) {
    const lower = name.toLowerCase();
    if (lower === 'format') continue;
    // A write's key is its header over HTTP: no field of the request, and no part of its fingerprint.
    if (lower === KEY_ARGUMENT && tool.facts.keyed) {
      idempotencyKey = value;
      continue;
    }
    if (params.has(lower)) pathValues.set(params.get(lower)!, value);
    else if (queryNames.has(lower) || !tool.hasBody) appendQuery(query, name, value);
    else body[name] = value;
  }
  const path: Record<string, string> = {};
  let pathTooLong = false;
  if (tool.pathParams.every((name) => isSegmentValue(pathValues.get(name)))) {
    for (const name of tool.pathParams) {
      const value = String(pathValues.get(name));
      path[name] = value;
      pathTooLong ||= encodeURIComponent(value).length > MAX_PATH_PARAMETER;
    }
  } else {
    for (const [name, value] of pathValues) appendQuery(query, name, value);
  }
  const sent = tool.hasBody ? { body, mediaType: 'application/json' } : { body: undefined };
  return { params: path, query: parseQueryString(query.toString()), ...sent, pathTooLong, idempotencyKey };
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
