import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type Provider from 'oidc-provider';
import { currentKeys, resolveOauthSecret } from '../auth/oauth-keys.js';
import { createAuthorizationServer, MCP_PATH, OAUTH_ROUTES } from '../auth/oauth-server.js';
import { OAUTH_SCOPES, type Caller, type OauthScope } from '../domain/caller.js';
import { ConfigError } from '../config.js';
import { refusalPage } from '../http/oauth-pages.js';
import { checkRedirectUri, issuerOf } from '../http/oauth-issuer.js';
import { findMcpGrant } from '../store/repositories/mcp-grants.js';
import { oauthPages } from './oauth-pages.js';
import { oauthAdapter } from '../store/repositories/oauth.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the node's authorization server for this request's issuer; undefined where OAuth does not serve (MCP_AUTH=bearer, a Host not loopback without PUBLIC_URL) */
    authorizationServer?(request: FastifyRequest): Promise<{ issuer: string; provider: Provider } | undefined>;
    /** the caller an access token of this node's authorization server names, while its grant stands; undefined for any other token */
    oauthCaller?(request: FastifyRequest): Promise<Caller | undefined>;
  }
}

/**
 * The authorization server's endpoints and pages (docs/decisions.md, "Assistants sign in with
 * OAuth"). The provider's endpoints take the raw request: Fastify parses none of their bodies.
 * The sign-in and consent pages are Fastify's, each form bound to the browser by a nonce in an
 * HttpOnly cookie, for one authorization.
 */
export const oauthPlugin = fp(
  async (app: FastifyInstance) => {
    if (app.config.MCP_AUTH !== 'oauth') return;
    let secret: string;
    try {
      secret = resolveOauthSecret(app.config);
    } catch (err) {
      // Nodes that share PostgreSQL share the secret: without it, /mcp takes bearer tokens alone, as before.
      if (!(err instanceof ConfigError)) throw err;
      app.log.warn(`${err.message} Until then assistants cannot sign in: /mcp takes the API's bearer tokens alone.`);
      return;
    }
    const adapter = oauthAdapter(app.store);
    const servers = new Map<string, Promise<Provider>>();
    const serverFor = (issuer: string) => {
      let server = servers.get(issuer);
      if (!server) {
        server = currentKeys(app.store, secret, app.config, Date.now()).then((keys) =>
          createAuthorizationServer({
            issuer,
            config: app.config,
            adapter,
            keys,
            grantClaims: async (grantId) => {
              const grant = await findMcpGrant(app.store.db, grantId);
              return grant && { company_id: grant.companyId, roles: grant.roles };
            },
            checkRedirectUri,
            allowFetch: (url) => app.config.OAUTH_CIMD_ALLOW_LOOPBACK || url.protocol === 'https:',
            errorPage: refusalPage,
          }),
        );
        servers.set(issuer, server);
      }
      return server;
    };
    app.decorate('authorizationServer', async (request: FastifyRequest) => {
      const issuer = issuerOf(app.config, request);
      return issuer === undefined ? undefined : { issuer, provider: await serverFor(issuer) };
    });

    let publicKeys: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;
    const verificationKeys = () =>
      (publicKeys ??= currentKeys(app.store, secret, app.config, Date.now()).then((keys) =>
        createLocalJWKSet({ keys: keys.signing.map(({ d: _d, ...pub }) => pub) }),
      ));
    app.decorate('oauthCaller', async (request: FastifyRequest) => {
      const issuer = issuerOf(app.config, request);
      const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
      if (issuer === undefined || token === undefined) return undefined;
      let payload;
      try {
        ({ payload } = await jwtVerify(token, await verificationKeys(), { issuer, audience: `${issuer}${MCP_PATH}`, typ: 'at+jwt', algorithms: ['ES256'] }));
      } catch {
        return undefined;
      }
      // Every call checks that the grant still stands: DeleteMcpGrant ends its tokens at once.
      const grant = typeof payload.grant_id === 'string' ? await findMcpGrant(app.store.db, payload.grant_id) : undefined;
      if (!grant || grant.expiresAt <= Date.now() || grant.sub !== payload.sub || grant.clientId !== payload.client_id) return undefined;
      const scopes = new Set(String(payload.scope ?? '').split(' ').filter((scope): scope is OauthScope => (OAUTH_SCOPES as readonly string[]).includes(scope)));
      return { sub: grant.sub, companyId: grant.companyId, roles: new Set(grant.roles), scopes, grantId: grant.grantId };
    });

    // The provider's own endpoints, fed the raw request and response.
    await app.register(async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', (_request, _payload, done) => done(null));
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const server = await app.authorizationServer!(request);
        if (!server) return reply.code(404).send({ ResponseStatus: { ErrorCode: 'NotFound', Message: 'This node signs no assistant in at this address: set PUBLIC_URL.' } });
        // The provider writes the answer itself: the headers already set (request id, security) go with it.
        for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
        if (request.url.startsWith(OAUTH_ROUTES.registration)) {
          reply.raw.setHeader('access-control-allow-origin', '*');
          if (request.method === 'OPTIONS') {
            reply.hijack();
            reply.raw.writeHead(204, { 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' }).end();
            return;
          }
        }
        reply.hijack();
        server.provider.callback()(request.raw, reply.raw);
      };
      const config = { rateLimit: false as const, ownMediaTypes: true };
      for (const url of ['/.well-known/oauth-authorization-server', OAUTH_ROUTES.jwks, OAUTH_ROUTES.token, OAUTH_ROUTES.revocation, OAUTH_ROUTES.registration]) {
        raw.route({ method: ['GET', 'POST', 'OPTIONS'], url, config, handler });
      }
      raw.route({ method: ['GET', 'POST'], url: OAUTH_ROUTES.authorization, config, handler });
      raw.route({ method: ['GET', 'POST'], url: `${OAUTH_ROUTES.authorization}/:uid`, config, handler });
    });
    await oauthPages(app, adapter);
  },
  { name: 'oauth', dependencies: ['store'] },
);
