import type { CallToolResult, McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { SUPERADMIN, type Caller } from '../domain/caller.js';
import { ApiError } from '../http/errors.js';
import type { Answers } from './answers.js';
import { runOperation, type Sender } from './call.js';
import { checkBudget, meter } from './metering.js';
import type { McpTool } from './tools.js';

/**
 * The MCP server (docs/decisions.md, "The MCP server"): the SDK's HTTP handler serves the
 * 2026-07-28 revision and, statelessly, the 2025 ones; each request gets a fresh low-level
 * Server whose `tools/list` shows the caller the tools its roles may call and whose
 * `tools/call` runs the operation (call.ts), metered (metering.ts). The SDK validates no
 * arguments here: the low-level Server has no input schemas of its own, so the operation's
 * binding and validation decide, as over HTTP. The SDK is loaded by the first MCP request,
 * so that a node serving only HTTP does not hold it.
 */

/** The result's `_meta` key for the tokens the call added to the company's usage. */
export const TOKENS_META = 'booking-admin/tokens';

/** GetMcpUsage reports the budget: it is never metered nor refused for it. */
const UNMETERED = new Set(['GetMcpUsage']);

/** Who calls and from where, handed from the HTTP route to the per-request Server, and where its results' answers are held. */
export interface McpCaller extends Sender {
  caller: Caller;
  answers: Answers;
}

const SERVER_INFO = { name: 'booking-admin-api', version: '1.0.0' };

const mayCall = (tool: McpTool, caller: Caller) => tool.roles.length === 0 || tool.roles.some((role) => caller.roles.has(role));

/** `CompanyId` among the arguments, in any case of its name (ServiceStack's binding matches names so). */
function namedCompany(args: Record<string, unknown>): unknown {
  for (const [name, value] of Object.entries(args)) if (name.toLowerCase() === 'companyid') return value;
  return undefined;
}

/** A result carrying the operation's answer: its JSON as text and, an object, as structured content (held: answers.ts). */
function toolResult(answers: Answers, text: string, object: boolean, isError: boolean, tokens: number): CallToolResult {
  const { text: held, structuredContent } = answers.hold(text, object);
  return {
    content: [{ type: 'text', text: held }],
    ...(structuredContent ? { structuredContent } : {}),
    ...(isError ? { isError: true } : {}),
    _meta: { [TOKENS_META]: tokens },
  };
}

function budgetRefusal(answers: Answers, limit: number, windowDays: number): CallToolResult {
  const error = new ApiError(429, 'McpTokenLimitReached', `The company has used its MCP token limit of ${limit} tokens in the last ${windowDays} days.`);
  return toolResult(answers, JSON.stringify({ ResponseStatus: error.toResponseStatus() }), true, true, 0);
}

export async function createMcpServer(app: FastifyInstance, tools: McpTool[]): Promise<McpHttpHandler> {
  const { createMcpHandler, ProtocolError, ProtocolErrorCode, Server } = await import('@modelcontextprotocol/server');
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));

  async function call(tool: McpTool, args: Record<string, unknown>, from: McpCaller): Promise<CallToolResult> {
    const metered = !UNMETERED.has(tool.definition.name);
    const caller = { companyId: from.caller.companyId, superadmin: from.caller.roles.has(SUPERADMIN) };
    const check = metered ? await checkBudget(app.store, app.config, caller, namedCompany(args)) : undefined;
    if (check && 'overBudget' in check) {
      app.metrics.mcpToolCall(tool.definition.name, 'over_budget', 0);
      return budgetRefusal(from.answers, check.overBudget.limit, check.overBudget.windowDays);
    }
    const answer = await runOperation(app, tool, args, from);
    const tokens = check ? await meter(app.store, check.company, answer.text) : 0;
    app.metrics.mcpToolCall(tool.definition.name, answer.status === 200 ? 'ok' : answer.status < 500 ? 'refused' : 'error', tokens);
    return toolResult(from.answers, answer.text, answer.object, answer.status !== 200, tokens);
  }

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
        let result: CallToolResult;
        try {
          result = await call(tool, (request.params.arguments ?? {}) as Record<string, unknown>, from);
        } catch (err) {
          // The SDK would answer the error's own message: a fault of the server says no more over MCP than over HTTP.
          app.log.error({ err, tool: tool.definition.name }, 'MCP tool call failed');
          app.metrics.mcpToolCall(tool.definition.name, 'error', 0);
          throw new ProtocolError(ProtocolErrorCode.InternalError, 'An unexpected error occurred.');
        }
        return server.projectCallToolResult(result, tool.definition.outputSchema);
      });
      return server;
    },
    { onerror: (error) => app.log.debug({ err: error }, 'MCP request refused') },
  );
}
