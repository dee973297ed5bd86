import { SignJWT } from 'jose';

export interface TokenRequest {
  companyId: string;
  roles: string[];
  sub?: string;
  /** jose duration, e.g. `1h`, `30m`, `7d` */
  expiresIn?: string;
  companyClaim?: string;
  rolesClaim?: string;
}

/** Mints an HS256 token the server accepts (used by `npm run token` and tests). */
export async function mintToken(secret: string, request: TokenRequest): Promise<string> {
  const claims: Record<string, unknown> = {};
  setPath(claims, request.companyClaim ?? 'company_id', request.companyId);
  setPath(claims, request.rolesClaim ?? 'roles', request.roles);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(request.sub ?? 'admin')
    .setIssuedAt()
    .setExpirationTime(request.expiresIn ?? '1h')
    .sign(new TextEncoder().encode(secret));
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
