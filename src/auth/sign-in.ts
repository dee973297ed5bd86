import { randomUUID } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Config } from '../config.js';
import { SUPERADMIN } from '../domain/caller.js';
import { callerOf } from './authenticate.js';
import { resolveJwtSecret } from './secret.js';
import { mintToken, SIGN_IN_AUDIENCE, type TokenRequest } from './token.js';

export { SIGN_IN_AUDIENCE };

/**
 * Sign-in tokens (docs/decisions.md, "Assistants sign in with OAuth"): a person who signs an
 * assistant in pastes one into the sign-in page. It is signed as the API's tokens are, but its
 * `aud` names the sign-in, so the REST API and `/mcp` refuse it and the sign-in refuses every
 * other token; it lives at most 10 minutes, and its `jti` lets the store take it once.
 */
export const SIGN_IN_MAX_SECONDS = 600;

export function mintSignInToken(secret: string, request: Omit<TokenRequest, 'audience' | 'jwtId' | 'expiresIn'>): Promise<string> {
  return mintToken(secret, { ...request, audience: SIGN_IN_AUDIENCE, jwtId: randomUUID(), expiresIn: `${SIGN_IN_MAX_SECONDS}s` });
}

export interface SignedIn {
  sub: string;
  companyId: string;
  roles: string[];
  jti: string;
  /** when the token expires (ms), which is as long as its use must be remembered */
  expiresAt: number;
}

/** The person a sign-in token names, or why it is refused (the page shows the reason). */
export async function verifySignInToken(config: Config, token: string): Promise<SignedIn | { refusal: string }> {
  if (config.AUTH_JWKS_URL) return { refusal: 'This server signs no sign-in tokens: sign in with your organisation instead.' };
  let payload;
  try {
    ({ payload } = await jwtVerify(token.trim(), new TextEncoder().encode(resolveJwtSecret(config)), {
      algorithms: ['HS256'],
      audience: SIGN_IN_AUDIENCE,
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      maxTokenAge: SIGN_IN_MAX_SECONDS,
    }));
  } catch {
    return { refusal: 'That is not a valid sign-in token, or it has expired. Make a new one with `npm run token -- … --sign-in`.' };
  }
  if (payload.exp! - payload.iat! > SIGN_IN_MAX_SECONDS) return { refusal: 'A sign-in token lives at most 10 minutes.' };
  const caller = callerOf(payload, config);
  if (caller.roles.has(SUPERADMIN)) return { refusal: 'A superadmin cannot sign an assistant in: its token would reach every company.' };
  if (!caller.companyId) return { refusal: 'The sign-in token names no company.' };
  return { sub: payload.sub!, companyId: caller.companyId, roles: [...caller.roles], jti: payload.jti!, expiresAt: payload.exp! * 1000 };
}
