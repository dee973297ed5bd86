import type { CallToolResult, McpHttpHandler } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../contract/coercion.js';
import { ApiError, errorText, toApiError, Unexpected } from '../contract/errors.js';
import { SUPERADMIN, scopeAdmits, type Caller } from '../domain/caller.js';
import type { Call, Execute } from '../executor/execute.js';
import { ReplayedRefusal } from '../executor/idempotency.js';
import type { Log } from '../handlers/types.js';
import type { MetricsRecorder } from '../metrics/metrics.js';
import { toolInput } from './call.js';
import type { Metering } from './metering.js';
import type { McpTool } from './tools.js';

/**
 * The MCP server (docs/decisions.md, "The MCP server"): the SDK's HTTP handler serves the
 * 2026-07-28 revision and, statelessly, the 2025 ones; each request gets a fresh low-level
 * Server whose `tools/list` shows the caller the tools its roles may call and whose
 * `tools/call` runs the operation by the executor, as HTTP does (executor/execute.ts), metered (metering.ts). The SDK validates no
 * arguments here: the low-level Server has no input schemas of its own, so the operation's
 * binding and validation decide, as over HTTP. The SDK is loaded by the first MCP request,
 * so that a node serving only HTTP does not hold it.
 */

/** The result's `_meta` key for the tokens the call added to the company's usage. */
export const TOKENS_META = 'booking-admin/tokens';
/** The result's `_meta` key of a replay: the stored answer of an earlier call with the same IdempotencyKey. */
export const REPLAYED_META = 'booking-admin/replayed';

/** GetMcpUsage reports the budget: it is never metered nor refused for it. */
const UNMETERED = new Set(['GetMcpUsage']);

/** Who calls, and what its calls run with: handed from the HTTP route to the per-request Server, through the SDK's authInfo. */
export interface McpCaller {
  caller: Caller;
  /** the executor's view of one tool call made in this MCP request */
  call(): Call;
  /** the operation's answer as its HTTP route writes it (the same serializer) */
  serialize(schema: JsonSchema, result: unknown): string;
}

export const SERVER_INFO = { name: 'booking-admin-api', version: '1.0.0' };

/** What a tool call answers: the operation's JSON text (an object: its structured content too), and the tokens it metered. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
  tokens: number;
  /** the stored answer of an earlier call with the same IdempotencyKey */
  replayed?: boolean;
}

/** What every tool call of a server uses: the executor and the metering. */
export interface ToolCalls {
  execute: Execute;
  metering: Metering;
  metrics: MetricsRecorder;
  log: Log;
}

const mayCall = (tool: McpTool, caller: Caller) =>
  (tool.roles.length === 0 || tool.roles.some((role) => caller.roles.has(role))) && scopeAdmits(caller, tool.facts.scope);

/** `CompanyId` among the arguments, in any case of its name (ServiceStack's binding matches names so). */
function namedCompany(args: Record<string, unknown>): unknown {
  for (const [name, value] of Object.entries(args)) if (name.toLowerCase() === 'companyid') return value;
  return undefined;
}

/**
 * The operation's answer to a call, as the HTTP operation answers: its result as the route
 * writes it, or its refusal as a JSON ResponseStatus. The executor counts, logs and maps
 * what it refuses, as for HTTP.
 */
async function runTool({ execute }: ToolCalls, tool: McpTool, args: Record<string, unknown>, from: McpCaller) {
  const { facts } = tool;
  try {
    const outcome = await execute(facts, toolInput(tool, args), from.call());
    const text = facts.ok ? from.serialize(facts.ok, outcome.result) : JSON.stringify(outcome.result);
    return { status: 200, text, replayed: outcome.replayed === true };
  } catch (err) {
    const error = toApiError(err) ?? new Unexpected(err);
    return { status: error.statusCode, text: errorText(error), replayed: error instanceof ReplayedRefusal };
  }
}

/**
 * One tool call: refused before it runs when the company is over its budget, else run by
 * the executor and metered. Throws only on a fault of the server.
 */
async function callTool(calls: ToolCalls, tool: McpTool, args: Record<string, unknown>, from: McpCaller): Promise<ToolAnswer> {
  const name = tool.definition.name;
  const metered = !UNMETERED.has(name);
  const caller = { companyId: from.caller.companyId, superadmin: from.caller.roles.has(SUPERADMIN) };
  const { metering, metrics } = calls;
  const check = metered ? await metering.checkBudget(caller, namedCompany(args)) : undefined;
  if (check && 'overBudget' in check) {
    metrics.mcpToolCall(name, 'over_budget', 0);
    const { limit, windowDays } = check.overBudget;
    const error = new ApiError(429, 'McpTokenLimitReached', `The company has used its MCP token limit of ${limit} tokens in the last ${windowDays} days.`);
    return { text: errorText(error), isError: true, tokens: 0 };
  }
  const answer = await runTool(calls, tool, args, from);
  const tokens = check ? await metering.meter(check.company, answer.text, from.caller.grantId) : 0;
  metrics.mcpToolCall(name, answer.status === 200 ? 'ok' : answer.status < 500 ? 'refused' : 'error', tokens);
  return { text: answer.text, isError: answer.status !== 200, tokens, replayed: answer.replayed };
}

/** A result carrying the operation's answer: its JSON as text and, an object, as structured content. */
function toolResult(answer: ToolAnswer): CallToolResult {
  return {
    content: [{ type: 'text', text: answer.text }],
    ...(answer.text.startsWith('{') ? { structuredContent: JSON.parse(answer.text) as Record<string, unknown> } : {}),
    ...(answer.isError ? { isError: true } : {}),
    _meta: { [TOKENS_META]: answer.tokens, ...(answer.replayed ? { [REPLAYED_META]: true } : {}) },
  };
}

/** A fault of the server says no more over MCP than over HTTP. */
export const FAULT_MESSAGE = 'An unexpected error occurred.';

/** A tool call whose fault of the server is logged and counted, and answered as undefined: the SDK answers it. */
async function answerTool(calls: ToolCalls, tool: McpTool, args: Record<string, unknown>, from: McpCaller): Promise<ToolAnswer | undefined> {
  try {
    return await callTool(calls, tool, args, from);
  } catch (err) {
    calls.log.error({ err, tool: tool.definition.name }, 'MCP tool call failed');
    calls.metrics.mcpToolCall(tool.definition.name, 'error', 0);
    return undefined;
  }
}

export async function createMcpServer(calls: ToolCalls, tools: McpTool[], byName: ReadonlyMap<string, McpTool>): Promise<McpHttpHandler> {
  const { createMcpHandler, ProtocolError, ProtocolErrorCode, Server } = await import('@modelcontextprotocol/server');

  return createMcpHandler(
    ({ authInfo }) => {
      const from = authInfo?.extra?.mcpCaller as McpCaller;
      const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
      server.setRequestHandler('tools/list', () => ({
        tools: tools.filter((tool) => mayCall(tool, from.caller)).map((tool) => tool.definition),
      }));
      server.setRequestHandler('tools/call', async (request) => {
        const tool = byName.get(request.params.name);
        if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
        const answer = await answerTool(calls, tool, (request.params.arguments ?? {}) as Record<string, unknown>, from);
        if (!answer) throw new ProtocolError(ProtocolErrorCode.InternalError, FAULT_MESSAGE);
        const result = toolResult(answer);
        return server.projectCallToolResult(result, tool.definition.outputSchema);
      });
      return server;
    },
    { onerror: (error) => calls.log.debug({ err: error }, 'MCP request refused') },
  );
}
