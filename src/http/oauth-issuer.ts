import type { FastifyRequest } from 'fastify';
import { isLoopbackHost, type Config } from '../config.js';

/**
 * Which origin the authorization server and the MCP resource answer as
 * (docs/decisions.md, "Assistants sign in with OAuth"). PUBLIC_URL is the node's canonical
 * origin, never a request's Host: metadata and audiences name it. Without it, OAuth serves
 * only a request whose Host is a loopback name, and the origin follows that name (a local
 * assistant reaches `http://127.0.0.1:3000`); any other Host gets bearer tokens alone.
 */

export function issuerOf(config: Pick<Config, 'PUBLIC_URL'>, request: FastifyRequest): string | undefined {
  if (config.PUBLIC_URL) return new URL(config.PUBLIC_URL).origin;
  let url: URL;
  try {
    url = new URL(`${request.protocol}://${request.headers.host ?? ''}`);
  } catch {
    return undefined;
  }
  return isLoopbackHost(url.hostname) ? url.origin : undefined;
}

/** Why a redirect URI may not be registered, or undefined: https, or http to this machine (RFC 8252). */
export function checkRedirectUri(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash) return 'a redirect URI has no fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  if (url.protocol === 'http:') return 'an http redirect URI must point at this machine (localhost, 127.0.0.1 or [::1])';
  // A native app's own scheme (cursor://…) is allowed; those that run or read something never.
  if (['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:'].includes(url.protocol)) return `${url.protocol} redirect URIs are refused`;
  return undefined;
}
