import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { resolveOauthSecret, seal, unseal } from '../auth/oauth-keys.js';
import { grantEnd, INTERACTION_PATH, MCP_PATH } from '../auth/oauth-server.js';
import { verifySignInToken } from '../auth/sign-in.js';
import { finishUpstream, startUpstream, UPSTREAM_CALLBACK_PATH, upstreamConfigured, type UpstreamChecks } from '../auth/upstream.js';
import { OAUTH_SCOPES, type OauthScope } from '../domain/caller.js';
import { operations } from '../contract/operations.js';
import { consentPage, pageHeaders, refusalPage, signInPage } from '../http/oauth-pages.js';
import { insertMcpGrant } from '../store/repositories/mcp-grants.js';
import { consumeOauthPayload, oauthAdapter } from '../store/repositories/oauth.js';

const NONCE_COOKIE = 'oauth_nonce';
/** The checks of a sign-in sent to the company's OpenID provider, sealed, sent back to its callback alone. */
const UPSTREAM_COOKIE = 'oauth_upstream';
const UPSTREAM_SEAL = 'oauth-upstream-sign-in';

/** The scopes a person's roles can use: a scope that admits no operation their roles may call is not granted. */
function usableScopes(roles: readonly string[]): OauthScope[] {
  const usable = new Set<OauthScope>();
  for (const facts of operations().values()) {
    if (facts.roles.length === 0 || facts.roles.some((role) => roles.includes(role))) usable.add(facts.scope);
  }
  return OAUTH_SCOPES.filter((scope) => usable.has(scope));
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * The sign-in and consent pages of the authorization server (plugins/oauth.ts): each form is
 * bound to the browser by a nonce in an HttpOnly cookie, for one authorization, and a refusal
 * is shown on the page. A sign-in token works once, on any node; a grant is one client,
 * person and company, with the scopes asked for that the person's roles can use. With
 * OAUTH_UPSTREAM_*, the login goes to the company's OpenID provider instead (auth/upstream.ts),
 * and its answer, on any node, finishes the login as a sign-in token does.
 */
export async function oauthPages(app: FastifyInstance, Adapter: ReturnType<typeof oauthAdapter>, secret = resolveOauthSecret(app.config)): Promise<void> {
  const upstream = upstreamConfigured(app.config);
  const signIns = app.config.OAUTH_SIGN_IN_RATE_LIMIT_MAX;
  const failures = signIns > 0 ? app.rateLimit({ max: signIns, timeWindow: app.config.RATE_LIMIT_WINDOW_MS, groupId: 'oauth-sign-in' }) : undefined;
  // The pages: forms posted as application/x-www-form-urlencoded.
await app.register(async (pages) => {
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16384 }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const config = { ownMediaTypes: true };
    const send = (reply: FastifyReply, html: string, formOrigins: string[] = [], status = 200) =>
      reply.code(status).headers(pageHeaders(formOrigins)).send(html);

    /** The interaction the URL names, with its provider; a page says why when there is none. */
    const interaction = async (request: FastifyRequest, reply: FastifyReply) => {
      const server = await app.authorizationServer!(request);
      if (!server) return undefined;
      try {
        const details = await server.provider.interactionDetails(request.raw, reply.raw);
        const client = await server.provider.Client.find(String(details.params.client_id));
        return { ...server, details, client };
      } catch {
        return undefined;
      }
    };
    const expired = (reply: FastifyReply) => send(reply, refusalPage('This sign-in has expired or was finished. Start again from the assistant.'), [], 400);
    const finish = async (request: FastifyRequest, reply: FastifyReply, provider: Provider, result: Record<string, unknown>) =>
      reply.redirect(await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: true }), 303);

    /** The login prompt, with OAUTH_UPSTREAM_*: to the company's OpenID provider, its checks sealed in a cookie for the callback. */
    const toUpstream = async (reply: FastifyReply, issuer: string, uid: string) => {
      let started;
      try {
        started = await startUpstream(app.config, `${issuer}${UPSTREAM_CALLBACK_PATH}`);
      } catch (err) {
        app.log.warn({ reason: (err as Error).message }, 'the OpenID provider of OAUTH_UPSTREAM_ISSUER cannot be reached');
        return send(reply, refusalPage('Your organisation’s sign-in cannot be reached just now. Try again in a minute.'), [], 502);
      }
      const sealed = await seal(secret, UPSTREAM_SEAL, JSON.stringify({ uid, ...started.checks, expiresAt: Date.now() + UPSTREAM_MS }));
      reply.header('set-cookie', `${UPSTREAM_COOKIE}=${sealed}; Path=${UPSTREAM_CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${UPSTREAM_MS / 1000}${issuer.startsWith('https:') ? '; Secure' : ''}`);
      return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(started.url.href, 303);
    };

    pages.get(`${INTERACTION_PATH}/:uid`, { config }, async (request, reply) => {
      const found = await interaction(request, reply);
      if (!found) return expired(reply);
      if (upstream && found.details.prompt.name === 'login') return toUpstream(reply, found.issuer, found.details.uid);
      const nonce = randomBytes(24).toString('base64url');
      reply.header('set-cookie', `${NONCE_COOKIE}=${nonce}; Path=${INTERACTION_PATH}/${found.details.uid}; HttpOnly; SameSite=Lax; Max-Age=600${found.issuer.startsWith('https:') ? '; Secure' : ''}`);
      const action = `${INTERACTION_PATH}/${found.details.uid}`;
      const origin = clientOrigin(found.client, found.details.params.redirect_uri);
      if (found.details.prompt.name === 'login') return send(reply, signInPage({ action: `${action}/sign-in`, nonce, client: origin }));
      const signedIn = (found.details.lastSubmission as { signIn?: { companyId: string; roles: string[] } } | undefined)?.signIn;
      const redirect = redirectSource(found.details.params.redirect_uri);
      return send(
        reply,
        consentPage({
          action: `${action}/consent`,
          nonce,
          origin,
          name: found.client?.clientName,
          company: signedIn?.companyId ?? '',
          person: String(found.details.session?.accountId ?? ''),
          scopes: grantedScopes(found.details.params.scope, signedIn?.roles ?? []),
        }),
        [redirect],
      );
    });

    pages.post<{ Body: Record<string, string> }>(`${INTERACTION_PATH}/:uid/sign-in`, { config }, async (request, reply) => {
      const found = await interaction(request, reply);
      if (!found || found.details.prompt.name !== 'login') return expired(reply);
      if (upstream) return send(reply, refusalPage('This server signs people in with their organisation’s sign-in, not with sign-in tokens.'), [], 403);
      if (typeof request.body?.nonce !== 'string' || cookie(request, NONCE_COOKIE) !== request.body.nonce) {
        return send(reply, refusalPage('This form was not sent by the page this browser was given. Start again from the assistant.'), [], 403);
      }
      const signedIn = await verifySignInToken(app.config, typeof request.body.token === 'string' ? request.body.token : '');
      const action = `${INTERACTION_PATH}/${found.details.uid}/sign-in`;
      const again = async (refusal: string, status = 401) => {
        // Failed sign-ins count per client address; past the limit the page says so (429).
        const limited = await failures?.call(app, request, reply).then(() => false, () => true);
        return limited
          ? send(reply, signInPage({ action, nonce: request.body.nonce, client: clientOrigin(found.client, found.details.params.redirect_uri), refusal: 'Too many failed sign-ins from this address: wait a minute and try again.' }), [], 429)
          : send(reply, signInPage({ action, nonce: request.body.nonce, client: clientOrigin(found.client, found.details.params.redirect_uri), refusal }), [], status);
      };
      if ('refusal' in signedIn) return again(signedIn.refusal);
      // A sign-in token works once, on any node: the store keeps its id until it expires.
      const tokens = new Adapter('SignInToken');
      await tokens.upsert(signedIn.jti, { jti: signedIn.jti }, Math.max(1, Math.ceil((signedIn.expiresAt - Date.now()) / 1000)));
      if (!(await consumeOauthPayload(app.store.db, 'SignInToken', signedIn.jti))) return again('This sign-in token was used already. Make a new one.');
      return finish(request, reply, found.provider, { login: { accountId: signedIn.sub }, signIn: { companyId: signedIn.companyId, roles: signedIn.roles } });
    });

    // The provider's answer: on any node (the checks travel sealed); the login finishes as a sign-in token's does.
    pages.get(UPSTREAM_CALLBACK_PATH, { config }, async (request, reply) => {
      const server = upstream ? await app.authorizationServer!(request) : undefined;
      if (!server) return send(reply, refusalPage('This server does not sign in with an organisation’s OpenID provider.'), [], 404);
      const sealed = cookie(request, UPSTREAM_COOKIE);
      // The checks serve once: whatever this answer was, the cookie goes.
      reply.header('set-cookie', `${UPSTREAM_COOKIE}=; Path=${UPSTREAM_CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`);
      const pending = sealed ? upstreamChecks(await unseal(secret, UPSTREAM_SEAL, sealed)) : undefined;
      const found = pending && (await server.provider.Interaction.find(pending.uid));
      if (!pending || !found || found.prompt.name !== 'login') return expired(reply);
      const query = request.url.indexOf('?') >= 0 ? request.url.slice(request.url.indexOf('?')) : '';
      const signedIn = await finishUpstream(app.config, new URL(`${server.issuer}${UPSTREAM_CALLBACK_PATH}${query}`), pending);
      if ('refusal' in signedIn) {
        app.log.info({ status: signedIn.status, reason: signedIn.detail ?? signedIn.refusal }, 'a sign-in with the OpenID provider of OAUTH_UPSTREAM_ISSUER was refused');
        return send(reply, refusalPage(signedIn.refusal), [], signedIn.status);
      }
      found.result = { ...found.lastSubmission, login: { accountId: signedIn.sub }, signIn: { companyId: signedIn.companyId, roles: signedIn.roles } };
      await found.save(found.exp - Math.floor(Date.now() / 1000));
      return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(found.returnTo, 303);
    });

    pages.post<{ Body: Record<string, string> }>(`${INTERACTION_PATH}/:uid/consent`, { config }, async (request, reply) => {
      const found = await interaction(request, reply);
      if (!found || found.details.prompt.name !== 'consent') return expired(reply);
      if (typeof request.body?.nonce !== 'string' || cookie(request, NONCE_COOKIE) !== request.body.nonce) {
        return send(reply, refusalPage('This form was not sent by the page this browser was given. Start again from the assistant.'), [], 403);
      }
      const redirect = redirectSource(found.details.params.redirect_uri);
      reply.headers(pageHeaders([redirect]));
      if (request.body.decision !== 'allow') return finish(request, reply, found.provider, { error: 'access_denied', error_description: 'The person denied the access.' });
      const signedIn = (found.details.lastSubmission as { signIn?: { companyId: string; roles: string[] } } | undefined)?.signIn;
      const sub = found.details.session?.accountId;
      const scopes = grantedScopes(found.details.params.scope, signedIn?.roles ?? []);
      if (!signedIn || !sub || scopes.length === 0) {
        return finish(request, reply, found.provider, { error: 'access_denied', error_description: 'The person’s roles allow none of the scopes asked for.' });
      }
      const grant = new found.provider.Grant({ accountId: sub, clientId: String(found.details.params.client_id) });
      grant.addResourceScope(`${found.issuer}${MCP_PATH}`, scopes.join(' '));
      const grantId = await grant.save();
      const now = Date.now();
      await insertMcpGrant(app.store.db, {
        grantId,
        companyId: signedIn.companyId,
        sub,
        clientId: String(found.details.params.client_id),
        clientOrigin: clientOrigin(found.client, found.details.params.redirect_uri),
        clientName: found.client?.clientName ?? null,
        scopes,
        roles: signedIn.roles,
        createdAt: now,
        expiresAt: grantEnd(app.config, now, now),
      });
      return finish(request, reply, found.provider, { consent: { grantId } });
    });
  });
}

/** How long a sign-in sent to the company's OpenID provider may take: the interaction's own 10 minutes. */
const UPSTREAM_MS = 600_000;

/** The sealed checks of a sign-in sent upstream, while they hold. */
function upstreamChecks(text: string | undefined): (UpstreamChecks & { uid: string }) | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text ?? 'null') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const strings = value && ['uid', 'state', 'nonce', 'verifier'].every((key) => typeof value[key] === 'string');
  return strings && typeof value.expiresAt === 'number' && value.expiresAt > Date.now() ? (value as unknown as UpstreamChecks & { uid: string }) : undefined;
}

/** The scopes asked for (none: both) that the person's roles can use. */
function grantedScopes(asked: unknown, roles: readonly string[]): OauthScope[] {
  const wanted = typeof asked === 'string' && asked.trim() ? new Set(asked.trim().split(/\s+/)) : new Set<string>(OAUTH_SCOPES);
  return usableScopes(roles).filter((scope) => wanted.has(scope));
}

/**
 * Where a client came from: a metadata document's host, or where this authorization's code
 * goes (the redirect URI in use, not the first registered: a client may register several).
 */
function clientOrigin(client: { clientId: string } | undefined, redirectUri: unknown): string {
  if (client && /^https:\/\//.test(client.clientId)) return new URL(client.clientId).host;
  const redirect = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!redirect) return 'An application';
  return redirect.protocol === 'http:' || redirect.protocol === 'https:' ? redirect.host : `${redirect.protocol}//${redirect.host}`;
}

/** The origin a form may post to on its way to the client: a native app's own scheme has no origin, only its scheme. */
function redirectSource(redirectUri: unknown): string {
  const url = new URL(String(redirectUri));
  return url.origin === 'null' ? url.protocol : url.origin;
}
