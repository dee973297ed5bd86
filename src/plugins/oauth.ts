import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type Provider from 'oidc-provider';
import { currentKeys, resolveOauthSecret, type OauthKeys } from '../auth/oauth-keys.js';
import { consumedAlready, createAuthorizationServer, grantEnd, MCP_PATH, OAUTH_ROUTES } from '../auth/oauth-server.js';
import { OAUTH_SCOPES, type Caller, type OauthScope } from '../domain/caller.js';
import { ConfigError } from '../config.js';
import { SWEEP } from '../executor/idempotency.js';
import type { Store } from '../store/db.js';
import { refusalPage } from '../http/oauth-pages.js';
import { checkRedirectUri, issuerOf } from '../http/oauth-issuer.js';
import { findMcpGrant, touchMcpGrant } from '../store/repositories/mcp-grants.js';
import { oauthPages } from './oauth-pages.js';
import { peekBody, refreshAnswers } from './oauth-refresh.js';
import { oauthAdapter, sweepExpiredOauth } from '../store/repositories/oauth.js';

/** How long a node uses the keys it read before it reads them again. */
const KEYS_FRESH_MS = 5 * 60_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** the node's authorization server for this request's issuer; undefined where OAuth does not serve (MCP_AUTH=bearer, a Host not loopback without PUBLIC_URL) */
    authorizationServer?(request: FastifyRequest): Promise<{ issuer: string; provider: Provider } | undefined>;
    /** the issuer OAuth serves this request as, without loading the authorization server; undefined where it does not serve */
    oauthIssuer?(request: FastifyRequest): string | undefined;
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
    const adapter = oauthAdapter(app.store, { consumedAlready });
    const refreshes = refreshAnswers(adapter, secret);
    // The keys, read again every KEYS_FRESH_MS (another node may have made the next generation);
    // the same keys read again stay the same object, so what was built from them is kept.
    let keyring: { readAt: number; keys: Promise<OauthKeys> } | undefined;
    const keys = (now = Date.now()) => {
      if (!keyring || now - keyring.readAt > KEYS_FRESH_MS) {
        const previous = keyring?.keys.catch(() => undefined);
        const next = currentKeys(app.store, secret, app.config, now).then(async (ring) => {
          const old = await previous;
          return old && sameKeys(old, ring) ? old : ring;
        });
        keyring = { readAt: now, keys: next };
        // A failed read is not kept: the next request reads again.
        const failed = keyring;
        next.catch(() => {
          if (keyring === failed) keyring = undefined;
        });
      }
      return keyring.keys;
    };
    // One provider per issuer and key set: a new generation makes a new provider.
    // At most a few issuers: without PUBLIC_URL, each loopback Host a request names is one.
    const servers = new LRUCache<string, { ring: OauthKeys; provider: Promise<Provider> }>({ max: 8 });
    const serverFor = async (issuer: string) => {
      const ring = await keys();
      let server = servers.get(issuer);
      if (server?.ring !== ring) {
        const provider = createAuthorizationServer({
          issuer,
          config: app.config,
          adapter,
          keys: ring,
          grantClaims: async (grantId) => {
            const grant = await findMcpGrant(app.store.db, grantId);
            return grant && { company_id: grant.companyId, roles: grant.roles };
          },
          checkRedirectUri,
          loopbackDocuments: app.config.OAUTH_CIMD_ALLOW_LOOPBACK,
          errorPage: refusalPage,
          refreshAnswered: refreshes.remember,
        });
        server = { ring, provider };
        servers.set(issuer, server);
      }
      return server.provider;
    };
    let warned = false;
    app.decorate('oauthIssuer', (request: FastifyRequest) => {
      const issuer = issuerOf(app.config, request);
      if (issuer === undefined && !warned) {
        warned = true;
        request.log.warn('A request reached /mcp or the sign-in at a host that is not this machine, and PUBLIC_URL is not set: assistants can sign in only at localhost. Set PUBLIC_URL to the origin they reach.');
      }
      return issuer;
    });
    app.decorate('authorizationServer', async (request: FastifyRequest) => {
      const issuer = app.oauthIssuer!(request);
      return issuer === undefined ? undefined : { issuer, provider: await serverFor(issuer) };
    });

    const verifiers = new WeakMap<OauthKeys, ReturnType<typeof createLocalJWKSet>>();
    const verificationKeys = async () => {
      const ring = await keys();
      let verifier = verifiers.get(ring);
      if (!verifier) {
        verifier = createLocalJWKSet({ keys: ring.signing.map(({ d: _d, ...pub }) => pub) });
        verifiers.set(ring, verifier);
      }
      return verifier;
    };
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
      const now = Date.now();
      if (!grant || grant.expiresAt <= now || grant.sub !== payload.sub || grant.clientId !== payload.client_id) return undefined;
      // Each use moves the grant's end UNUSED_GRANT_MS on, never past its longest life; at most once a minute.
      if (now - (grant.lastUsedAt ?? 0) > 60_000) await touchMcpGrant(app.store.db, grant.grantId, grantEnd(app.config, grant.createdAt, now));
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
        if (request.method === 'POST' && request.url.split('?')[0] === OAUTH_ROUTES.token) {
          const body = await peekBody(request.raw);
          const params = body && new URLSearchParams(body.toString());
          const refreshToken = params?.get('grant_type') === 'refresh_token' ? params.get('refresh_token') : null;
          const again = refreshToken ? await refreshes.again(refreshToken, params!.get('client_id')) : undefined;
          if (again !== undefined) {
            reply.hijack();
            reply.raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'access-control-allow-origin': '*' });
            reply.raw.end(JSON.stringify(again));
            return;
          }
        }
        // The provider builds its URLs from the request: it is shown the issuer's, never the Host sent.
        const issuer = new URL(server.issuer);
        request.raw.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
        request.raw.headers['x-forwarded-host'] = issuer.host;
        reply.hijack();
        server.provider.callback()(request.raw, reply.raw);
      };
      const config = { rateLimit: false as const, ownMediaTypes: true };
      // Registrations are limited per client address (a public endpoint that writes to the store).
      const registrations = app.config.OAUTH_REGISTRATION_RATE_LIMIT_MAX;
      const registering = registrations > 0 ? { max: registrations, timeWindow: app.config.RATE_LIMIT_WINDOW_MS, groupId: 'oauth-registration' } : false;
      for (const url of ['/.well-known/oauth-authorization-server', OAUTH_ROUTES.jwks, OAUTH_ROUTES.token, OAUTH_ROUTES.revocation, OAUTH_ROUTES.registration]) {
        raw.route({ method: ['GET', 'POST', 'OPTIONS'], url, config: url === OAUTH_ROUTES.registration ? { ...config, rateLimit: registering } : config, handler });
      }
      // An authorization writes to the store (its interaction): it counts as any request of the address does.
      const authorizing = { ownMediaTypes: true };
      raw.route({ method: ['GET', 'POST'], url: OAUTH_ROUTES.authorization, config: authorizing, handler });
      raw.route({ method: ['GET', 'POST'], url: `${OAUTH_ROUTES.authorization}/:uid`, config, handler });
    });
    await oauthPages(app, adapter, secret);

    // What has expired (codes, sessions, refresh tokens, grants) goes in bounded batches, on every node.
    let sweeping: Promise<unknown> = Promise.resolve();
    const sweeper = setInterval(() => {
      sweeping = sweepOauth(app.store).catch((err: unknown) => app.log.warn({ err }, 'deleting expired OAuth records failed'));
    }, SWEEP.everyMs).unref();
    app.addHook('onClose', async () => {
      clearInterval(sweeper);
      await sweeping;
    });
  },
  { name: 'oauth', dependencies: ['store'] },
);

/** Sweeps expired OAuth records in bounded batches, until a batch finds fewer than it may delete. */
async function sweepOauth(store: Store): Promise<number> {
  let deleted = 0;
  for (let run = 0; run < SWEEP.batches; run++) {
    const went = await sweepExpiredOauth(store, Date.now(), SWEEP.batch);
    deleted += went;
    if (went < SWEEP.batch) break;
  }
  return deleted;
}

/** The same keys: the same signing key ids and cookie keys, in the same order. */
function sameKeys(a: OauthKeys, b: OauthKeys): boolean {
  const ids = (ring: OauthKeys) => JSON.stringify([ring.signing.map((key) => key.kid), ring.cookies]);
  return ids(a) === ids(b);
}

