import type { FastifyRequest } from 'fastify';
import { SERVER_INFO, TOKENS_META, type ToolAnswer } from './server.js';
import type { McpTool } from './tools.js';

/**
 * The direct path of a plain `tools/call` of the current revision (docs/decisions.md, "The MCP
 * server"). Most MCP traffic is tool calls, and the SDK's exchange around one (a Server per
 * request, its checks of the message and of the result, a web Response read back) cost more
 * than the operation it runs. A request the SDK would take as a well-formed 2026-07-28
 * `tools/call` of a known tool, and that needs nothing but its result, is answered here: the
 * same tool call (server.ts `answerTool`), written as the SDK writes its answer, byte for byte
 * (test/mcp/direct.test.ts holds the two side by side). Anything else, any doubt included,
 * goes to the SDK: other methods, the 2025 revisions, batches, unknown tools, and any header
 * or member this path does not know.
 */

const REVISION = '2026-07-28';
const ENVELOPE_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

type Sdk = typeof import('@modelcontextprotocol/server');

export interface DirectCall {
  id: string | number;
  tool: McpTool;
  args: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const only = (value: Record<string, unknown>, keys: Set<string>) => Object.keys(value).every((key) => keys.has(key));

/**
 * The SDK's verdicts on the envelopes of the calls seen, by tool and envelope: a client sends
 * the same envelope with each call, and the SDK's reading of one (zod parsing the whole
 * message, its failed alternatives included) was the largest part of what a call left for a
 * full collection. Bounded in number and in size: a caller that sends a new envelope each
 * time, or a long one, only has it read anew.
 */
const verdicts = new Map<string, boolean>();
const VERDICTS_KEPT = 256;
const VERDICT_KEY_LENGTH = 1_024;

/**
 * The key of a verdict on `meta`: its JSON text, which must tell apart any two envelopes the
 * SDK could judge differently. JSON text of a parsed body does (key order aside, which only
 * costs a second verdict) but for a number too large for a double, parsed as Infinity and
 * written as null: such an envelope, one too deep to write, or a long one has no key, and is
 * read by the SDK each time. The tool's name is in the key too, although the SDK's verdict
 * does not read it today.
 */
function verdictKey(name: string, meta: Record<string, unknown>): string | undefined {
  let exact = true;
  let text: string;
  try {
    text = JSON.stringify(meta, (_key, value: unknown) => {
      if (typeof value === 'number' && !Number.isFinite(value)) exact = false;
      return value;
    });
  } catch {
    return undefined;
  }
  const key = `${name}\n${text}`;
  return exact && key.length <= VERDICT_KEY_LENGTH ? key : undefined;
}

/** The call, when `request` is a plain tools/call of the current revision; undefined: the SDK answers it. */
export function directCall(request: FastifyRequest, sdk: Sdk, tools: Map<string, McpTool>): DirectCall | undefined {
  const body = request.body;
  const { headers } = request;
  if (!isObject(body) || !only(body, MESSAGE_KEYS) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (!isObject(params) || !only(params, PARAMS_KEYS) || typeof params.name !== 'string') return undefined;
  const tool = tools.get(params.name);
  const args = params.arguments ?? {};
  const meta = params._meta;
  if (!tool || !isObject(args) || !isObject(meta) || !only(meta, ENVELOPE_KEYS)) return undefined;
  if (headers['mcp-protocol-version'] !== REVISION || headers['mcp-method'] !== 'tools/call' || headers['mcp-name'] !== params.name) return undefined;
  if (!sdk.isJsonContentType(headers['content-type'] ?? null) || !String(headers.accept ?? '').includes('application/json')) return undefined;
  // The SDK's own reading of the message and its envelope: a modern request naming this
  // revision. What it reads of a message that passed the checks above is the envelope (not
  // the id's value, nor the arguments, which are the operation's to judge), so its verdict on
  // the envelope is its verdict on every such call.
  const key = verdictKey(params.name, meta);
  let modern = key === undefined ? undefined : verdicts.get(key);
  if (modern === undefined) {
    const outcome = sdk.classifyInboundRequest({
      httpMethod: 'POST', // the route's only method
      protocolVersionHeader: REVISION,
      mcpMethodHeader: 'tools/call',
      mcpNameHeader: params.name,
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name: params.name, _meta: meta } },
    } as Parameters<Sdk['classifyInboundRequest']>[0]);
    modern = outcome.kind === 'modern' && outcome.messageKind === 'request' && outcome.classification.revision === REVISION;
    if (key !== undefined) {
      if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
      verdicts.set(key, modern);
    }
  }
  return modern ? { id, tool, args } : undefined;
}

const SERVER_META = `${JSON.stringify('io.modelcontextprotocol/serverInfo')}:${JSON.stringify(SERVER_INFO)}`;

/** The JSON-RPC answer of a call, as the SDK writes a tools/call result of this revision. */
export function directAnswer(id: string | number, answer: ToolAnswer): string {
  const meta = `{${JSON.stringify(TOKENS_META)}:${answer.tokens},${SERVER_META}}`;
  const content = `[{"type":"text","text":${JSON.stringify(answer.text)}}]`;
  const structured = answer.object ? `,"structuredContent":${answer.text}` : '';
  const isError = answer.isError ? ',"isError":true' : '';
  return `{"result":{"_meta":${meta},"content":${content}${structured}${isError},"resultType":"complete"},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The SDK's answer to a fault of the server during a call. */
export const directFault = (id: string | number, message: string) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message } });
