import { coerceToSchema, define, isRecord, type JsonSchema } from '../contract/coercion.js';
import type { OperationInput } from '../executor/execute.js';
import { IDEMPOTENCY_ARGUMENT, type McpTool } from './tools.js';

/**
 * The input a tool call's arguments make (docs/decisions.md, "The MCP server"): JSON values
 * by contract name, each field in the contract's place, read with the leniency HTTP reads
 * text with: a name in any case, a number or boolean sent as a string, an enum name in
 * another case. So a request means the same over either transport, and makes the same
 * Idempotency-Key fingerprint. Nothing is checked here: the executor validates the input.
 */

type Place = 'params' | 'query' | 'body';

/** Each tool's path and query parameters by their lower-cased names, made at its first call. */
const placesByTool = new WeakMap<McpTool, Map<string, Place>>();
function placesOf(tool: McpTool): Map<string, Place> {
  let places = placesByTool.get(tool);
  if (!places) {
    places = new Map([...tool.queryParams.map((name) => [name.toLowerCase(), 'query'] as const), ...tool.pathParams.map((name) => [name.toLowerCase(), 'params'] as const)]);
    placesByTool.set(tool, places);
  }
  return places;
}

const KEY_ARGUMENT = IDEMPOTENCY_ARGUMENT.toLowerCase();

/** The operation's input of a call: path and query fields where the contract puts them, anything else the body's. */
export function toolInput(tool: McpTool, args: Record<string, unknown>): OperationInput {
  const { facts } = tool;
  const places = placesOf(tool);
  const parts: Record<Place, Record<string, unknown>> = { params: {}, query: {}, body: {} };
  let idempotencyKey: unknown;
  for (const [key, value] of Object.entries(args)) {
    const lower = key.toLowerCase();
    // The answer's format is the MCP layer's (JSON); a write's key is its header over HTTP, no field.
    if (lower === 'format' || value === undefined) continue;
    if (lower === KEY_ARGUMENT && facts.keyed) {
      idempotencyKey ??= value;
      continue;
    }
    const place = places.get(lower) ?? (tool.hasBody ? 'body' : 'query');
    // As a blank query parameter over HTTP, a null or blank path or query value is not given.
    if (place !== 'body' && (value === null || value === '')) continue;
    define(parts[place], key, value);
  }
  // Coercion renames each field to the contract's spelling (that spelling winning over another
  // case of it) and reads its value as the schema's type.
  const typed = (place: Place) => (facts[place] ? (coerceToSchema(parts[place], facts[place] as JsonSchema) as Record<string, unknown>) : parts[place]);
  const body = tool.hasBody ? typed('body') : undefined;
  // A blank CompanyId means "the caller's company", as over HTTP.
  if (isRecord(body) && typeof body.CompanyId === 'string' && body.CompanyId.trim() === '') delete body.CompanyId;
  return { params: typed('params'), query: typed('query'), body, idempotencyKey };
}
