import type { CallToolResult, McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { ReplayedRefusal } from '../executor/idempotency.js';
import { ApiError, pathParameterTooLong } from '../http/errors.js';
import { errorBody } from '../http/error-body.js';
import { toApiError } from '../plugins/errors.js';
import { refusingLimit } from '../plugins/protection.js';
import { operationInput } from './call.js';
import type { Metering } from './metering.js';
import type { McpTool } from './tools.js';

/**
 * The MCP server (docs/decisions.md, "The MCP server"): the SDK's HTTP handler serves the
 * 2026-07-28 revision and, statelessly, the 2025 ones; each request gets a fresh low-level
 * Server whose `tools/list` shows the caller the tools its roles may call and whose
 * `tools/call` runs the operation by the executor, as HTTP does (executor/run.ts), metered (metering.ts). The SDK validates no
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

/** Who calls, and the MCP request its calls run in: handed from the HTTP route to the per-request Server. */
export interface McpCaller {
  caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
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

/** What every tool call of a server uses: the app and its metering. */
export interface ToolCalls {
  app: FastifyInstance;
  metering: Metering;
}

const mayCall = (tool: McpTool, caller: Caller) => tool.roles.length === 0 || tool.roles.some((role) => caller.roles.has(role));

/** `CompanyId` among the arguments, in any case of its name (ServiceStack's binding matches names so). */
function namedCompany(args: Record<string, unknown>): unknown {
  for (const [name, value] of Object.entries(args)) if (name.toLowerCase() === 'companyid') return value;
  return undefined;
}

/**
 * The operation's answer to a call, as the HTTP operation answers: its result as the route
 * writes it (the same serializer), or its refusal as the error plugin writes it (JSON).
 */
async function runTool(app: FastifyInstance, tool: McpTool, args: Record<string, unknown>, from: McpCaller) {
  const name = tool.definition.name;
  const started = performance.now();
  let status = 200;
  let text: string;
  let replayed = false;
  try {
    const input = operationInput(tool, args);
    if (input.pathTooLong) throw pathParameterTooLong();
    const outcome = await app.runOperation(tool.facts, input, { caller: from.caller, request: from.request, reply: from.reply, addressCounted: false });
    replayed = outcome.replayed === true;
    text = tool.facts.ok ? from.reply.compileSerializationSchema(tool.facts.ok, '200', 'application/json')(outcome.result as Record<string, unknown>) : JSON.stringify(outcome.result);
    if (outcome.recordedEvent) {
      // The webhooks plugin hands the request's event to the worker once the answer is sent;
      // an earlier call's of the same request is handed over now, committed as it is.
      if (from.request.recordedEvent) app.webhooks?.nudge(from.request.recordedEvent);
      from.request.recordedEvent = outcome.recordedEvent;
    }
  } catch (err) {
    const limit = refusingLimit(err);
    if (limit) app.metrics.rateLimited(name, limit);
    const apiError = toApiError(err as Parameters<typeof toApiError>[0], from.request);
    if (!apiError) from.request.log.error({ err, operation: name }, 'unexpected error');
    else if (apiError.statusCode >= 500) from.request.log.error({ err, operation: name }, 'request failed');
    const error = apiError ?? new ApiError(500, 'InternalServerError', 'An unexpected error occurred.');
    status = error.statusCode;
    text = errorBody('json', error);
    replayed = error instanceof ReplayedRefusal;
  }
  // Observed as the operation's request, as over HTTP (the metrics plugin's onResponse).
  app.metrics.request(name, status, (performance.now() - started) / 1000);
  return { status, text, replayed };
}

/**
 * One tool call: refused before it runs when the company is over its budget, else run by
 * the executor and metered. Throws only on a fault of the server.
 */
async function callTool({ app, metering }: ToolCalls, tool: McpTool, args: Record<string, unknown>, from: McpCaller): Promise<ToolAnswer> {
  const name = tool.definition.name;
  const metered = !UNMETERED.has(name);
  const caller = { companyId: from.caller.companyId, superadmin: from.caller.roles.has(SUPERADMIN) };
  const check = metered ? await metering.checkBudget(caller, namedCompany(args)) : undefined;
  if (check && 'overBudget' in check) {
    app.metrics.mcpToolCall(name, 'over_budget', 0);
    const { limit, windowDays } = check.overBudget;
    const error = new ApiError(429, 'McpTokenLimitReached', `The company has used its MCP token limit of ${limit} tokens in the last ${windowDays} days.`);
    return { text: errorBody('json', error), isError: true, tokens: 0 };
  }
  const answer = await runTool(app, tool, args, from);
  const tokens = check ? await metering.meter(check.company, answer.text) : 0;
  app.metrics.mcpToolCall(name, answer.status === 200 ? 'ok' : answer.status < 500 ? 'refused' : 'error', tokens);
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
    from.request.log.error({ err, tool: tool.definition.name }, 'MCP tool call failed');
    calls.app.metrics.mcpToolCall(tool.definition.name, 'error', 0);
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
    { onerror: (error) => calls.app.log.debug({ err: error }, 'MCP request refused') },
  );
}
