import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.js';
import { unauthorized } from '../http/errors.js';
import { resolveJwtSecret } from './secret.js';

export const SUPERADMIN = 'superadmin';

/** Who is calling, as the verified token says. */
export interface Caller {
  sub?: string;
  /** the caller's company (lower-case guid), when the token names one */
  companyId?: string;
  roles: ReadonlySet<string>;
}

export type Authenticate = (authorization: string | undefined) => Promise<Caller>;

const guid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

  return async (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthorized();
    let payload: JWTPayload;
    try {
      payload = jwks
        ? (await jwtVerify(match[1], jwks, options)).payload
        : (await jwtVerify(match[1], secret!, options)).payload;
    } catch {
      throw unauthorized('The bearer token is invalid or expired.');
    }
    const roles = claim(payload, config.AUTH_ROLES_CLAIM);
    const company = claim(payload, config.AUTH_COMPANY_CLAIM);
    return {
      sub: typeof payload.sub === 'string' ? payload.sub : undefined,
      companyId: typeof company === 'string' && guid.test(company) ? company.toLowerCase() : undefined,
      roles: new Set(
        Array.isArray(roles)
          ? roles.filter((r): r is string => typeof r === 'string')
          : typeof roles === 'string'
            ? roles.split(/[\s,]+/).filter(Boolean)
            : [],
      ),
    };
  };
}
