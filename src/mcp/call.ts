import { coerceToSchema, define, isRecord, propertiesOf, type JsonSchema } from '../contract/coercion.js';
import type { OperationFacts } from '../contract/operations.js';
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

/** Each operation's field names by their lower case, with their place, made at its first call. */
const namesByOperation = new Map<string, Map<string, { place: Place; name: string }>>();
function namesOf(facts: OperationFacts) {
  let names = namesByOperation.get(facts.operationId);
  if (!names) {
    names = new Map();
    // Later places first, so that a name the path and the body share is the path's, as over HTTP.
    for (const place of ['body', 'query', 'params'] as const) {
      for (const name of Object.keys(propertiesOf(facts[place] ?? {}) ?? {})) names.set(name.toLowerCase(), { place, name });
    }
    namesByOperation.set(facts.operationId, names);
  }
  return names;
}

const KEY_ARGUMENT = IDEMPOTENCY_ARGUMENT.toLowerCase();

/** The operation's input of a call: path and query fields where the contract puts them, anything else the body's. */
export function toolInput(tool: McpTool, args: Record<string, unknown>): OperationInput {
  const { facts } = tool;
  const names = namesOf(facts);
  const parts: Record<Place, Record<string, unknown>> = { params: {}, query: {}, body: {} };
  let idempotencyKey: unknown;
  // A name spelled as the contract spells it wins over the same name in another case.
  const sent = Object.keys(args).sort((a, b) => Number(names.get(b.toLowerCase())?.name === b) - Number(names.get(a.toLowerCase())?.name === a));
  for (const key of sent) {
    const value = args[key];
    const lower = key.toLowerCase();
    // The answer's format is the MCP layer's (JSON); a write's key is its header over HTTP, no field.
    if (lower === 'format' || value === undefined) continue;
    if (lower === KEY_ARGUMENT && facts.keyed) {
      idempotencyKey ??= value;
      continue;
    }
    const field = names.get(lower);
    const place: Place = field?.place ?? (facts.body ? 'body' : 'query');
    const name = field?.name ?? key;
    // As a blank query parameter over HTTP, a null or blank path or query value is not given.
    if (place !== 'body' && (value === null || value === '')) continue;
    if (!Object.hasOwn(parts[place], name)) define(parts[place], name, value);
  }
  const typed = (place: Place) => (facts[place] ? (coerceToSchema(parts[place], facts[place] as JsonSchema) as Record<string, unknown>) : parts[place]);
  const body = facts.body ? typed('body') : undefined;
  // A blank CompanyId means "the caller's company", as over HTTP.
  if (isRecord(body) && typeof body.CompanyId === 'string' && body.CompanyId.trim() === '') delete body.CompanyId;
  return { params: typed('params'), query: typed('query'), body, idempotencyKey };
}
