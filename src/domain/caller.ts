/**
 * Who is calling, in the domain's words: the rules that depend on the caller (who sees a
 * rebate code's private parts) read this, and src/auth makes it from a verified token.
 */

/** The role that may act on any company. */
export const SUPERADMIN = 'superadmin';

/** Who is calling, as the verified token says. */
export interface Caller {
  sub?: string;
  /** the caller's company (lower-case guid), when the token names one */
  companyId?: string;
  roles: ReadonlySet<string>;
  /** an OAuth access token's scopes, which narrow what its roles allow (absent: an API token) */
  scopes?: ReadonlySet<OauthScope>;
  /** the OAuth grant the token belongs to: rate limits count per grant */
  grantId?: string;
}

/** The scopes of an OAuth token for `/mcp`: reads (operations without side effects) and writes. */
export const OAUTH_SCOPES = ['booking.read', 'booking.write'] as const;
export type OauthScope = (typeof OAUTH_SCOPES)[number];

/** The scope an operation needs, by its method: a GET has no side effects. */
export const scopeOf = (method: string): OauthScope => (method.toUpperCase() === 'GET' ? 'booking.read' : 'booking.write');

/** Whether a caller's scopes admit an operation needing `scope`; a caller without scopes (an API token) is narrowed by its roles alone. */
export const scopeAdmits = (caller: Caller, scope: OauthScope): boolean => caller.scopes === undefined || caller.scopes.has(scope);
