import { openStore } from '../../src/store/db.js';
import type { BenchMeta } from './bulk.js';
import { runLoad, type LoadResult } from './load.js';
import { ENGINE_LABEL, enginesOf, type MeasureOptions, type PerEngine } from './measure.js';
import type { Operation, OpRequest } from './operations.js';
import { peakRssOf } from './proc.js';
import type { Child } from './servers.js';
import { summarizeTurns, TARGETS, type TargetCheck } from './summary.js';
import { markdownTable, mib, n0, times, turnColumns } from './tables.js';

// The requirement on the MCP server (docs/decisions.md, "The MCP server"): a tool call costs
// at most 3× the CPU of the same operation over HTTP (3.5× for the read on PostgreSQL), token
// counting included, and the server's peak RSS with MCP in use stays under 280 MiB. One read
// and one write, each sent through MCP `tools/call` and over HTTP in turn, to the same
// full-scale server after the main rounds (same rows), so its peak RSS afterwards is that of a
// server that served everything, MCP included.

/** The measured operations (ids of operations.ts) and the tool of each: the operation's operationId. */
const MEASURED: Record<string, string> = { PrintoutFirstPage: 'BookingPrintoutQuery', CreateMessageTemplate: 'CreateMessageTemplate' };
/**
 * The measured company's own token limit during the measurement: the largest the column
 * holds on both engines, so that no call is refused for budget and each runs, and is
 * metered, as a call within budget is.
 */
const BUDGET = 2_147_483_647;
/** The MCP path's code is cold after the rounds, which sent HTTP alone: its warm-up is this many times --warmup. */
const WARMUP_FACTOR = 4;
const PROTOCOL = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL,
  'io.modelcontextprotocol/clientInfo': { name: 'booking-admin-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export type McpSide = 'http' | 'mcp';
export type McpRound = Record<McpSide, LoadResult>;

export interface McpOperationResult {
  id: string;
  label: string;
  kind: Operation['kind'];
  tool: string;
  /** the call answered a result that is no error (else `detail` says what it answered) */
  ok: boolean;
  detail?: string;
  rounds: McpRound[];
}

export interface McpResult {
  operations: McpOperationResult[];
  /** VmHWM of the server after the measurement, kB */
  peakRssKb: number;
}

export interface McpSettings extends MeasureOptions {
  server: Pick<Child, 'url' | 'pid'>;
  databaseUrl: string;
  meta: BenchMeta;
  operations: Operation[];
  /** the operations' HTTP requests, at full scale */
  requests: Map<string, OpRequest>;
}

/** The operations of `selected` the MCP measurement has (`--only` narrows it as it narrows the rounds). */
export const mcpOperations = (selected: Operation[]) => selected.filter((op) => Object.hasOwn(MEASURED, op.id));

/** A query value as a client would type the argument: a number where it is one. */
const argument = (value: string) => (/^-?\d{1,15}$/.test(value) ? Number(value) : value);

/** The arguments of a `tools/call` that asks what `request` asks over HTTP: its query fields and its JSON body's. */
export function toolArguments(request: { path: string; body?: string }): Record<string, unknown> {
  const url = new URL(request.path, 'http://localhost');
  if (/%7B|\{/i.test(url.pathname)) throw new Error(`${request.path}: the MCP measurement takes operations without path parameters`);
  const args: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) args[name] = argument(value);
  return { ...args, ...(request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {}) };
}

/** The JSON-RPC POST of a `tools/call` of `tool`, with the headers the 2026-07-28 revision's transport wants. */
export function mcpRequest(tool: string, http: OpRequest): OpRequest {
  const body = (request: { path: string; body?: string }) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: toolArguments(request), _meta: ENVELOPE } });
  const headers = {
    authorization: http.headers.authorization,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
  const { vary } = http;
  return {
    method: 'POST', path: '/mcp', headers, body: body(http),
    ...(vary ? { vary: (rng) => { const v = vary(rng); return { body: body({ path: v.path ?? http.path, body: v.body ?? http.body }) }; } } : {}),
  };
}

/** Whether a call answers a result that is no error; else what it answered. */
async function checkCall(url: string, request: OpRequest): Promise<{ ok: boolean; detail?: string }> {
  const response = await fetch(url + request.path, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data: '))?.slice(6) ?? '');
  let message: { result?: { isError?: boolean } } = {};
  try {
    message = JSON.parse(json);
  } catch {
    // not JSON-RPC: reported below
  }
  const ok = response.status === 200 && message.result !== undefined && message.result.isError !== true;
  return ok ? { ok } : { ok, detail: `${response.status} ${text.slice(0, 300)}` };
}

/** Raises `company`'s own token limit to BUDGET in the database at `databaseUrl`. */
export async function raiseBudget(databaseUrl: string, company: string): Promise<void> {
  const store = await openStore(databaseUrl, { migrate: false });
  try {
    await store.db.updateTable('companies').set({ mcp_token_limit: BUDGET }).where('id', '=', company).execute();
  } finally {
    await store.close();
  }
}

/** The tool call of a measured operation, for its CPU profile. */
export const mcpProfileRequest = (id: string, http: OpRequest): OpRequest => mcpRequest(MEASURED[id], http);

export async function measureMcp(s: McpSettings): Promise<McpResult> {
  await raiseBudget(s.databaseUrl, s.meta.hotCompanyId);
  const sides = s.operations.map((op) => {
    const http = s.requests.get(op.id)!;
    return { op, http, mcp: mcpRequest(MEASURED[op.id], http) };
  });
  const checked = new Map<string, { ok: boolean; detail?: string }>();
  for (const { op, mcp } of sides) {
    const check = await checkCall(s.server.url, mcp);
    checked.set(op.id, check);
    if (!check.ok) s.log(`WARNING MCP ${MEASURED[op.id]} did not answer a result: ${check.detail}`);
  }
  const run = (op: Operation, request: OpRequest, duration: number, seed: string) =>
    runLoad(s.server.url, request, { connections: s.connections, duration, expectStatus: op.status, seed, cpuPid: s.server.pid });
  // Each round swaps which side goes first, so neither always follows the other's load.
  const round = async (n: number, duration: number): Promise<McpRound[]> => {
    const rounds: McpRound[] = [];
    for (const { op, http, mcp } of sides) {
      const result = {} as McpRound;
      for (const side of n % 2 === 1 ? (['http', 'mcp'] as const) : (['mcp', 'http'] as const)) {
        result[side] = await run(op, side === 'http' ? http : mcp, duration, `${s.seed}:mcp:${op.id}:${n}`);
      }
      rounds.push(result);
    }
    return rounds;
  };
  if (s.warmup > 0) await round(0, s.warmup * WARMUP_FACTOR);
  const results = sides.map(({ op }) => ({ id: op.id, label: op.label, kind: op.kind, tool: MEASURED[op.id], ...checked.get(op.id)!, rounds: [] as McpRound[] }));
  for (let n = 1; n <= s.rounds; n++) {
    const measured = await round(n, s.duration);
    measured.forEach((r, i) => results[i].rounds.push(r));
    s.log(`MCP round ${n}/${s.rounds} ` + results.map((o, i) => `${o.tool} ${describe(measured[i])}`).join(' | '));
  }
  return { operations: results, peakRssKb: peakRssOf(s.server.pid) ?? 0 };
}

const describe = (r: McpRound) =>
  (['http', 'mcp'] as const).map((side) => `${side} ${r[side].rps.toFixed(0)} rps ${(r[side].cpuUsPerRequest ?? NaN).toFixed(0)} µs`).join(', ');

/** An operation's medians over the rounds, and the median of the per-round MCP / HTTP CPU ratios. */
export function summarizeMcp(o: McpOperationResult) {
  const { base: http, other: mcp, cpuRatio, unexpected } = summarizeTurns(o.rounds, 'http', 'mcp');
  return { http, mcp, cpuRatio, unexpected };
}

/** Per engine: the CPU of each measured operation through MCP against over HTTP, and the peak RSS. */
export function mcpTargets(results: PerEngine<McpResult>): TargetCheck[] {
  return enginesOf(results).flatMap((engine): TargetCheck[] => [
    ...results[engine]!.operations.map((o): TargetCheck => {
      const s = summarizeMcp(o);
      const broken = !o.ok || s.unexpected > 0 ? ` (unexpected answers: ${o.ok ? s.unexpected : 'not a result'})` : '';
      const limit = engine === 'postgres' && o.kind === 'read' ? TARGETS.mcpCpuPostgresRead : TARGETS.mcpCpu;
      // One wording on both engines, so that a read's verdicts share a row of the targets table.
      const exception = o.kind === 'read' ? `, ${TARGETS.mcpCpuPostgresRead}× on PostgreSQL` : '';
      return {
        engine, target: `CPU per MCP call ≤ ${TARGETS.mcpCpu}× the same ${o.kind} over HTTP${exception}`, subject: `${o.tool} through MCP (${o.label})`,
        value: `${times(s.cpuRatio)} (${n0(s.mcp.cpuUs)} µs against ${n0(s.http.cpuUs)} µs)${broken}`, met: !broken && s.cpuRatio <= limit,
        profile: `mcp:${o.id}`,
      };
    }),
    {
      engine, target: `Peak RSS with MCP in use < ${TARGETS.mcpRssMiB} MiB`, subject: 'API server, full scale, after the MCP measurement (VmHWM)',
      value: `${mib(results[engine]!.peakRssKb)} MiB`, met: results[engine]!.peakRssKb > 0 && results[engine]!.peakRssKb / 1024 < TARGETS.mcpRssMiB,
      profile: `mcp:${results[engine]!.operations[0]?.id ?? ''}`,
    },
  ]);
}

export function mcpMarkdown(results: PerEngine<McpResult> | undefined): string[] {
  if (!results) return ['### MCP', '', 'Not measured (--mcp off, or --only named none of its operations).', ''];
  const engines = enginesOf(results);
  const rows = engines.flatMap((engine) => results[engine]!.operations.map((o) => ({ engine, o, s: summarizeMcp(o) })));
  type Row = (typeof rows)[number];
  return [
    '### MCP',
    '',
    `Each operation as a \`tools/call\` of its tool (a JSON-RPC POST /mcp of the ${PROTOCOL} revision, with its headers and \`_meta\` envelope, the same fields as arguments) ` +
      'and as the same HTTP request, in turn, to the full-scale server of each engine after the rounds above (same rows; each round swaps which goes first), ' +
      `after a warm-up of ${WARMUP_FACTOR} × --warmup each (the MCP path's code is cold after rounds of HTTP alone). ` +
      `The measured company's own token limit is raised to ${n0(BUDGET)} first, so every call is checked against its budget, runs and is metered. ` +
      'CPU per request as above (the server process), so an MCP call\'s includes the SDK, the budget check, the token count and the usage write.',
    '',
    ...markdownTable<Row>([
      { title: 'Engine', cell: (r) => ENGINE_LABEL[r.engine] },
      { title: 'Operation', cell: (r) => `${r.o.label}${r.o.ok && r.s.unexpected === 0 ? '' : ' ⚠'}` },
      ...turnColumns<Row>(['HTTP', 'MCP'], (r) => [r.s.http, r.s.mcp], { title: 'MCP / HTTP CPU', of: (r) => r.s.cpuRatio }),
    ], rows),
    '',
    `Peak RSS of that server after the MCP measurement (VmHWM over its whole run, MCP included): ${engines.map((e) => `${ENGINE_LABEL[e]} ${mib(results[e]!.peakRssKb)} MiB`).join(', ')}.`,
    ...rows.filter((r) => !r.o.ok).map((r) => `\n⚠ ${r.o.tool} through MCP on ${ENGINE_LABEL[r.engine]} answered no result: \`${(r.o.detail ?? '').slice(0, 200)}\``),
    '',
  ];
}
