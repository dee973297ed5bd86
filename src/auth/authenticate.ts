import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import type { Caller } from '../domain/caller.js';
import { unauthorized } from '../contract/errors.js';
import { isGuid } from '../contract/string-formats.js';
import { resolveJwtSecret } from './secret.js';
import { SIGN_IN_AUDIENCE } from './token.js';

export type Authenticate = (authorization: string | undefined) => Promise<Caller>;

/** Reads a dotted claim path such as `realm_access.roles`. */
export function claim(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Verifies bearer tokens: HS256 with the configured secret, or, when AUTH_JWKS_URL is
 * set, RS256/ES256 tokens of an identity provider. Only those algorithms are accepted
 * (never `none`); `exp` is enforced, and issuer and audience when configured.
 */
export function createAuthenticator(config: Config): Authenticate {
  const options = {
    algorithms: config.AUTH_JWKS_URL ? ['RS256', 'ES256'] : ['HS256'],
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    requiredClaims: ['exp'],
  };
  const jwks: JWTVerifyGetKey | undefined = config.AUTH_JWKS_URL
    ? createRemoteJWKSet(new URL(config.AUTH_JWKS_URL))
    : undefined;
  const secret = jwks ? undefined : new TextEncoder().encode(resolveJwtSecret(config));
  const verified = new VerifiedTokens();

  return async (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthorized();
    const token = match[1];
    const known = verified.get(token);
    if (known) return known;
    let payload: JWTPayload;
    let typ: string | undefined;
    try {
      ({ payload, protectedHeader: { typ } } = jwks ? await jwtVerify(token, jwks, options) : await jwtVerify(token, secret!, options));
    } catch {
      throw unauthorized('The bearer token is invalid or expired.');
    }
    // With the API's own secret, an OAuth access token (RFC 9068) is none of its tokens; an
    // identity provider's access tokens (AUTH_JWKS_URL) may well be typed so.
    if (!jwks && /^(application\/)?at\+jwt$/i.test(typ ?? '')) throw unauthorized('An OAuth access token is not an API bearer token.');
    // A sign-in token is for the sign-in page alone (sign-in.ts).
    if ([payload.aud].flat().includes(SIGN_IN_AUDIENCE)) throw unauthorized('A sign-in token is not a bearer token.');
    const caller = callerOf(payload, config);
    verified.set(token, caller, payload.exp! * 1000);
    return caller;
  };
}

/** The caller a verified token's claims describe. */
export function callerOf(payload: JWTPayload, config: Config): Caller {
  const roles = claim(payload, config.AUTH_ROLES_CLAIM);
  const company = claim(payload, config.AUTH_COMPANY_CLAIM);
  return {
    sub: typeof payload.sub === 'string' ? payload.sub : undefined,
    companyId: typeof company === 'string' && isGuid(company) ? company.toLowerCase() : undefined,
    roles: new Set(
      Array.isArray(roles)
        ? roles.filter((r): r is string => typeof r === 'string')
        : typeof roles === 'string'
          ? [roles]
          : [],
    ),
  };
}

/**
 * Tokens already verified, with the caller each names, until they expire. Checking a
 * signature gives the same answer every time for the same token (and the same key), and
 * it was the largest cost of an authenticated request after the store (bench/results.md):
 * a client sends the same token many times. The key is the whole token text, so any
 * other text (a changed signature or claim) is verified afresh. An entry is kept at most
 * MAX_AGE_MS even when the token lives longer, so a key an identity provider withdraws
 * stops being trusted soon after; and at most MAX_ENTRIES are kept (least recently used out).
 */
export class VerifiedTokens {
  static readonly MAX_ENTRIES = 10_000;
  static readonly MAX_AGE_MS = 5 * 60_000;
  readonly #cache: LRUCache<string, Caller>;

  constructor(private readonly now: () => number = Date.now) {
    this.#cache = new LRUCache({ max: VerifiedTokens.MAX_ENTRIES, perf: { now }, ttlResolution: 0 });
  }

  get(token: string): Caller | undefined {
    return this.#cache.get(token);
  }

  /** `expiresAt`: the token's `exp`, in ms. */
  set(token: string, caller: Caller, expiresAt: number): void {
    // lru-cache keeps an entry through the last millisecond of its ttl, and a token is
    // no longer valid at its exp: hence the 1.
    const ttl = Math.min(expiresAt, this.now() + VerifiedTokens.MAX_AGE_MS) - this.now() - 1;
    if (ttl > 0) this.#cache.set(token, caller, { ttl });
  }

  get size(): number {
    return this.#cache.size;
  }
}
