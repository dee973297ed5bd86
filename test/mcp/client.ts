import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { LightMyRequestResponse } from 'fastify';
import { COMPANY_A } from '../fixtures.js';
import type { TestApp } from '../helper.js';
import { WRITE, authorizationOf, type Caller } from '../requests.js';

// MCP clients of a test app: the official SDK client over Streamable HTTP, its requests sent
// in process through the app's contract-checking inject (test/helper.ts), and raw JSON-RPC
// POSTs for what a client would not send.

/** The protocol revisions the server serves: 2026-07-28 (per-request envelope) and two of 2025 (initialize first). */
export const ERAS = ['2026-07-28', '2025-11-25', '2025-06-18'] as const;
export type Era = (typeof ERAS)[number];

export interface ClientOptions {
  /** the caller (test/requests.ts): roles of a test token, a JWT, or null for none; the write role by default */
  as?: Caller;
  /** the company of the caller's token; company A by default */
  company?: string;
  era?: Era;
  /** the address the requests come from (the rate limits count it) */
  remoteAddress?: string;
}

/** A fetch that sends each request through `api.inject`, so that every answer is checked as the API's are. */
export function injectFetch(api: TestApp, remoteAddress?: string) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const response = await api.inject({
      method: (init.method ?? 'GET') as 'POST',
      url: url.pathname + url.search,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ...(init.body !== undefined && init.body !== null ? { payload: init.body as string } : {}),
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    return toResponse(response);
  };
}

function toResponse(response: LightMyRequestResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  const empty = response.statusCode === 204 || response.statusCode === 304 || response.rawPayload.length === 0;
  return new Response(empty ? null : response.rawPayload, { status: response.statusCode, headers });
}

/** A connected SDK client of the app's MCP server, closed when the test ends. */
export async function mcpClient(t: { teardown(fn: () => unknown): void }, api: TestApp, options: ClientOptions = {}): Promise<Client> {
  const { as = [WRITE], company = COMPANY_A, era = '2026-07-28', remoteAddress } = options;
  const client = new Client(
    { name: 'booking-admin-tests', version: '1.0.0' },
    era === '2026-07-28' ? { versionNegotiation: { mode: { pin: era } } } : { supportedProtocolVersions: [era] },
  );
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: injectFetch(api, remoteAddress),
    requestInit: { headers: await authorizationOf(as, company) },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

/** The `_meta` envelope a 2026-07-28 request carries. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'booking-admin-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * One JSON-RPC request POSTed as a client of `era` sends it (no `initialize` before it: the
 * server is stateless). `headers` are sent last and may replace any of the others; `payload`,
 * when given, is the body as sent, in place of the one made of `method` and `params`.
 */
export async function postMcp(
  api: TestApp,
  method: string,
  params: Record<string, unknown> = {},
  options: ClientOptions & { headers?: Record<string, string>; id?: number; payload?: string } = {},
): Promise<LightMyRequestResponse> {
  const { as = [WRITE], company = COMPANY_A, era = '2026-07-28', remoteAddress, headers = {}, id = 1 } = options;
  const modern = era === '2026-07-28';
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return api.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      ...(await authorizationOf(as, company)),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(modern ? { 'mcp-method': method, ...name } : {}),
      ...headers,
    },
    payload: options.payload ?? JSON.stringify({ jsonrpc: '2.0', id, method, params: modern ? { ...params, _meta: ENVELOPE } : params }),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** The JSON-RPC message of an answer, in JSON or as the one event of an event stream. */
export function rpcMessage(response: LightMyRequestResponse): { result?: any; error?: { code: number; message: string } } {
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    const data = response.body.split('\n').find((line) => line.startsWith('data: '));
    return JSON.parse(data!.slice('data: '.length));
  }
  return response.json();
}
