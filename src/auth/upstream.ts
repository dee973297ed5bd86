import type { JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import { isLoopbackHost, type Config } from '../config.js';
import { SUPERADMIN } from '../domain/caller.js';
import { callerOf } from './authenticate.js';

/**
 * Signing in with a company's own OpenID provider (docs/decisions.md, "Assistants sign in with
 * OAuth"): with OAUTH_UPSTREAM_ISSUER, _CLIENT_ID and _CLIENT_SECRET set, the sign-in page sends
 * the person there (the code flow with PKCE S256, a state and a nonce), and the ID token's `sub`,
 * company and roles (AUTH_COMPANY_CLAIM, AUTH_ROLES_CLAIM) name who signed in, refused as a
 * sign-in token is. Neither token is kept: the claims are read and both are dropped.
 */

/** Where the provider sends the person back: `<issuer>/oauth/upstream/callback` is the redirect URI registered there. */
export const UPSTREAM_CALLBACK_PATH = '/oauth/upstream/callback';

/** What a sign-in sent to the provider must find again at the callback (the page seals it into a cookie). */
export interface UpstreamChecks {
  state: string;
  nonce: string;
  verifier: string;
}

export type UpstreamSignIn =
  | { sub: string; companyId: string; roles: string[] }
  /** `detail` is for the log (never a token), `refusal` for the page */
  | { refusal: string; status: number; detail?: string };

type UpstreamConfig = Pick<Config, 'OAUTH_UPSTREAM_ISSUER' | 'OAUTH_UPSTREAM_CLIENT_ID' | 'OAUTH_UPSTREAM_CLIENT_SECRET'>;

export function upstreamConfigured(config: UpstreamConfig): boolean {
  return Boolean(config.OAUTH_UPSTREAM_ISSUER && config.OAUTH_UPSTREAM_CLIENT_ID && config.OAUTH_UPSTREAM_CLIENT_SECRET);
}

/** The provider's metadata and keys, discovered once per process; a failed discovery is tried again by the next sign-in. */
const discovered = new Map<string, Promise<oidc.Configuration>>();

function configurationOf(config: UpstreamConfig): Promise<oidc.Configuration> {
  const issuer = new URL(config.OAUTH_UPSTREAM_ISSUER!);
  const [clientId, secret] = [config.OAUTH_UPSTREAM_CLIENT_ID!, config.OAUTH_UPSTREAM_CLIENT_SECRET!];
  const key = JSON.stringify([issuer.href, clientId, secret]);
  let found = discovered.get(key);
  if (!found) {
    // Plain http only to this machine (a provider in the tests); loadConfig refuses any other.
    const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
    found = oidc.discovery(issuer, clientId, { client_secret: secret }, secretAuth(secret), { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: 10 });
    found.catch(() => discovered.delete(key));
    discovered.set(key, found);
  }
  return found;
}

/** client_secret_basic, OpenID's default, unless the provider lists client_secret_post alone. */
function secretAuth(secret: string): oidc.ClientAuth {
  return (as, ...rest) => {
    const methods = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const basic = methods.includes('client_secret_basic') || !methods.includes('client_secret_post');
    return (basic ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret))(as, ...rest);
  };
}

/**
 * The provider's authorization URL for one sign-in, and the checks its answer must meet. The
 * scope is `openid`; the company and roles claims (their top-level names) are asked for in the
 * ID token with OpenID's `claims` parameter where the provider takes it. Throws when the
 * provider cannot be reached.
 */
export async function startUpstream(config: Config, redirectUri: string): Promise<{ url: URL; checks: UpstreamChecks }> {
  const configuration = await configurationOf(config);
  const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
  const parameters: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: 'openid',
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
    code_challenge_method: 'S256',
  };
  if (configuration.serverMetadata().claims_parameter_supported) {
    const names = [config.AUTH_COMPANY_CLAIM, config.AUTH_ROLES_CLAIM].map((path) => path.split('.')[0]);
    parameters.claims = JSON.stringify({ id_token: Object.fromEntries(names.map((name) => [name, null])) });
  }
  return { url: oidc.buildAuthorizationUrl(configuration, parameters), checks };
}

/**
 * The person the provider's answer names, or why they are refused. `callbackUrl` is the
 * callback as the provider sent the browser to it (the node's issuer, the path, the query).
 * The code is exchanged and the ID token validated (signature, issuer, audience, expiry,
 * nonce) by openid-client; then the same refusals as a sign-in token's.
 */
export async function finishUpstream(config: Config, callbackUrl: URL, checks: UpstreamChecks): Promise<UpstreamSignIn> {
  if (callbackUrl.searchParams.get('state') !== checks.state) {
    return { refusal: 'This answer does not belong to the sign-in this browser started. Start again from the assistant.', status: 400 };
  }
  let claims: JWTPayload | undefined;
  try {
    const configuration = await configurationOf(config);
    const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims() as JWTPayload | undefined;
  } catch (err) {
    return refusalOf(err);
  }
  if (!claims || typeof claims.sub !== 'string' || claims.sub === '') return { refusal: 'Your organisation’s sign-in named no person (no `sub`).', status: 403 };
  const caller = callerOf(claims, config);
  if (caller.roles.has(SUPERADMIN)) return { refusal: 'A superadmin cannot sign an assistant in: its token would reach every company.', status: 403 };
  if (!caller.companyId) return { refusal: 'Your organisation’s sign-in names no company for you.', status: 403 };
  return { sub: claims.sub, companyId: caller.companyId, roles: [...caller.roles] };
}

/** What the page says when the provider refused, or its answer did not hold; `detail` names the error for the log. */
function refusalOf(err: unknown): Extract<UpstreamSignIn, { refusal: string }> {
  if (err instanceof oidc.AuthorizationResponseError) {
    return { refusal: `Your organisation’s sign-in did not sign you in: ${err.error_description ?? err.error}.`, status: 401, detail: err.error };
  }
  const { code, message, cause } = err as { code?: string; message?: string; cause?: { message?: string } };
  const detail = err instanceof oidc.ResponseBodyError ? `${err.error}: ${err.error_description ?? ''}` : [code, message, cause?.message].filter(Boolean).join(': ');
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.ClientError) {
    return { refusal: 'Your organisation’s sign-in answered in a way this server cannot accept. Start again from the assistant.', status: 400, detail };
  }
  return { refusal: 'Your organisation’s sign-in cannot be reached just now. Try again in a minute.', status: 502, detail };
}
