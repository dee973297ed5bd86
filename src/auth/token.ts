import { SignJWT } from 'jose';

/** The `aud` of a sign-in token (sign-in.ts), which no API call accepts. */
export const SIGN_IN_AUDIENCE = 'urn:booking-admin:mcp-sign-in';

export interface TokenRequest {
  companyId: string;
  roles: string[];
  sub?: string;
  /** jose duration, e.g. `1h`, `30m`, `7d` */
  expiresIn?: string;
  companyClaim?: string;
  rolesClaim?: string;
  /** the token's `aud`; a sign-in token's is SIGN_IN_AUDIENCE (sign-in.ts) */
  audience?: string;
  /** the token's `jti`, which a sign-in token needs to be used once */
  jwtId?: string;
}

/** Mints an HS256 token the server accepts (used by `npm run token` and tests). */
export async function mintToken(secret: string, request: TokenRequest): Promise<string> {
  const claims: Record<string, unknown> = {};
  setPath(claims, request.companyClaim ?? 'company_id', request.companyId);
  setPath(claims, request.rolesClaim ?? 'roles', request.roles);
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(request.sub ?? 'admin')
    .setIssuedAt()
    .setExpirationTime(request.expiresIn ?? '1h');
  if (request.audience) token.setAudience(request.audience);
  if (request.jwtId) token.setJti(request.jwtId);
  return token.sign(new TextEncoder().encode(secret));
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
}
