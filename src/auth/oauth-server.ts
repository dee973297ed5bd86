import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { JWK } from 'jose';
import { isLoopbackHost, type Config } from '../config.js';
import { OAUTH_SCOPES } from '../domain/caller.js';
import { loopbackFetch } from './oauth-loopback.js';

/**
 * The node's authorization server, for `/mcp` alone (docs/decisions.md, "Assistants sign in
 * with OAuth"), on panva's oidc-provider: the code flow with PKCE S256, registration of public
 * clients, client ID metadata documents, resource indicators with JWT access tokens whose
 * audience is the MCP resource, rotated refresh tokens, revocation and RFC 9207's `iss`. The
 * person signs in and consents on this node's own pages (plugins/oauth.ts).
 */

/** The endpoints, under one prefix, so that the API's routes and the provider's never meet. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;

export const MCP_PATH = '/mcp';
export const INTERACTION_PATH = '/oauth/interaction';

export interface AuthorizationServerOptions {
  issuer: string;
  config: Config;
  /** oidc-provider's storage (store/repositories/oauth.ts) */
  adapter: NonNullable<Configuration['adapter']>;
  keys: { signing: JWK[]; cookies: string[] };
  /** the claims a grant's access tokens carry (its company and roles), read from the store */
  grantClaims(grantId: string): Promise<Record<string, unknown> | undefined>;
  /** why a redirect URI may not be registered (`javascript:`, `data:`, non-loopback `http`), or undefined */
  checkRedirectUri(uri: string): string | undefined;
  /** tests only (OAUTH_CIMD_ALLOW_LOOPBACK): a client ID metadata document may be on this machine */
  loopbackDocuments: boolean;
  /** a refusal shown on a page, never a stack trace */
  errorPage(message: string): string;
  /** keeps a refresh's answer for the same refresh sent again soon (plugins/oauth-refresh.ts) */
  refreshAnswered(refreshToken: string, clientId: string, answer: unknown): Promise<void>;
}


/**
 * oidc-provider, loaded by the first OAuth request: a node no assistant signs in to never holds
 * it (and, on Node 20, never prints its notice that the runtime is past its support).
 */
let library: Promise<typeof import('oidc-provider')> | undefined;

let invalidGrant: (() => Error) | undefined;

/** The refusal of a code or refresh token that another request consumed first: invalid_grant. */
export const consumedAlready = (): Error => invalidGrant?.() ?? new Error('consumed already');

export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<Provider> {
  const { default: OidcProvider, errors } = await (library ??= import('oidc-provider'));
  invalidGrant ??= () => new errors.InvalidGrant('the code or refresh token was used already');
  const { issuer, config } = options;
  const resource = `${issuer}${MCP_PATH}`;
  const configuration: Configuration = {
    adapter: options.adapter,
    jwks: { keys: options.keys.signing as never },
    cookies: { keys: options.keys.cookies, long: { signed: true, sameSite: 'lax' }, short: { signed: true, sameSite: 'lax' } },
    routes: OAUTH_ROUTES,
    scopes: [],
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    // No ID token is issued (no openid scope), but a client's algorithm must be one the keys have.
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // An https client_id whose document (at most 5 KB, fetched within 2.5 s, cached at most a
      // day) is fetched from a public address, checked as it connects.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02', cacheDuration: { min: 30, max: 86400 } },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, asked) => {
          if (asked !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return { scope: OAUTH_SCOPES.join(' '), audience: resource, accessTokenTTL: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A grant outlives the browser's session: an assistant refreshes for weeks.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: {
      AuthorizationCode: 60,
      // Each refresh makes a new one: a grant unused for 30 days ends, and any at its Grant TTL.
      RefreshToken: Math.min(30, config.OAUTH_GRANT_MAX_DAYS) * 86400,
      Grant: config.OAUTH_GRANT_MAX_DAYS * 86400,
      Session: 600,
      Interaction: 600,
    },
    extraClientMetadata: {
      // Listing a property is what makes oidc-provider call the validator, before its own checks.
      properties: ['redirect_uris'],
      validator(_ctx, key, value, metadata) {
        if (key !== 'redirect_uris') return;
        // Booking scopes are the resource's, not OpenID's: a client asks for them at authorization.
        delete metadata.scope;
        for (const uri of (value as string[] | undefined) ?? []) {
          const refusal = options.checkRedirectUri(uri);
          if (refusal) throw new errors.InvalidClientMetadata(`redirect_uris: ${refusal}`);
          // RFC 8252: a loopback redirect matches on any port, and an app's own scheme is a native client's.
          const url = new URL(uri);
          if (url.protocol !== 'https:' || isLoopbackHost(url.hostname)) metadata.application_type = 'native';
        }
      },
    },
    clientBasedCORS: () => true,
    ...(options.loopbackDocuments ? { fetch: loopbackFetch } : {}),
    // Every authorization asks the person again: a grant is one client, person and company.
    loadExistingGrant: async (ctx) => {
      const id = ctx.oidc.result?.consent?.grantId;
      return id ? ctx.oidc.provider.Grant.find(id) : undefined;
    },
    interactions: { url: async (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    extraTokenClaims: async (_ctx, token) => {
      const grantId = 'grantId' in token ? (token.grantId as string | undefined) : undefined;
      const claims = grantId ? await options.grantClaims(grantId) : undefined;
      return { grant_id: grantId, ...claims };
    },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = options.errorPage(String(out.error_description ?? out.error));
    },
  };
  const provider = new OidcProvider(issuer, configuration);
  provider.use(async (ctx, next) => {
    await next();
    const params = ctx.oidc?.body as Record<string, unknown> | undefined;
    if (ctx.oidc?.route === 'token' && ctx.status === 200 && params?.grant_type === 'refresh_token' && typeof params.refresh_token === 'string') {
      await options.refreshAnswered(params.refresh_token, String(ctx.oidc.client?.clientId ?? params.client_id), ctx.body);
    }
  });
  // The mount (plugins/oauth.ts) sets the forwarded scheme and host to the issuer's, whatever was sent.
  provider.proxy = true;
  return provider;
}

/** A grant unused this long ends (docs/decisions.md, "Assistants sign in with OAuth"). */
const UNUSED_GRANT_MS = 30 * 86_400_000;

/** When a grant made at `createdAt` and used at `now` ends: unused for 30 days, or at OAUTH_GRANT_MAX_DAYS. */
export const grantEnd = (config: { OAUTH_GRANT_MAX_DAYS: number }, createdAt: number, now: number) =>
  Math.min(createdAt + config.OAUTH_GRANT_MAX_DAYS * 86_400_000, now + UNUSED_GRANT_MS);
