import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorCodeOf } from '../contract/errors.js';

/**
 * Between Fastify and the SDK's web-standard handler (`fetch(Request) → Response`): the
 * request goes in with its headers (its body already parsed, passed beside it), the
 * response comes back onto the reply. An HTTP error the SDK answers with a JSON-RPC error
 * body keeps that body, so MCP clients read it as theirs, and gains the API's
 * ResponseStatus beside it, the shape of every error this server sends.
 */

/** Headers of the connection, not of the request, and the body's length (the body is passed parsed). */
const SKIPPED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length']);

/**
 * The request as the SDK reads it: its method, path and headers; the body goes beside it,
 * parsed. The host is not the request's, which a client may send as it likes.
 */
export function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

/** Whether a body is a `tools/call`, or a batch of nothing else: the operation it runs counts as the request. */
export function isToolsCall(body: unknown): boolean {
  const isCall = (message: unknown) => (message as { method?: unknown } | null)?.method === 'tools/call';
  return Array.isArray(body) ? body.length > 0 && body.every(isCall) : isCall(body);
}

/** A JSON-RPC error body with the ResponseStatus of the same refusal beside it. */
function withResponseStatus(status: number, text: string): string {
  let body: { error?: { message?: unknown } } & Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
  const message = typeof body.error?.message === 'string' ? body.error.message : 'The MCP request was refused.';
  const error = new ApiError(status, errorCodeOf(status), message);
  return JSON.stringify({ ...body, ResponseStatus: error.toResponseStatus() });
}

/** The SDK's response onto the reply. */
export async function fromWebResponse(response: Response, reply: FastifyReply): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value);
  });
  const text = await response.text();
  // An accepted notification has no answer.
  if (text === '') return reply.send();
  const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return reply.send(response.status >= 400 && json ? withResponseStatus(response.status, text) : text);
}
