import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { INTERACTION_PATH, MCP_PATH } from '../auth/oauth-server.js';
import { verifySignInToken } from '../auth/sign-in.js';
import { OAUTH_SCOPES, type OauthScope } from '../domain/caller.js';
import { operations } from '../contract/operations.js';
import { consentPage, pageHeaders, refusalPage, signInPage } from '../http/oauth-pages.js';
import { insertMcpGrant } from '../store/repositories/mcp-grants.js';
import { consumeOauthPayload, oauthAdapter } from '../store/repositories/oauth.js';

const NONCE_COOKIE = 'oauth_nonce';

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
 * person and company, with the scopes asked for that the person's roles can use.
 */
export async function oauthPages(app: FastifyInstance, Adapter: ReturnType<typeof oauthAdapter>): Promise<void> {
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

    pages.get(`${INTERACTION_PATH}/:uid`, { config }, async (request, reply) => {
      const found = await interaction(request, reply);
      if (!found) return expired(reply);
      const nonce = randomBytes(24).toString('base64url');
      reply.header('set-cookie', `${NONCE_COOKIE}=${nonce}; Path=${INTERACTION_PATH}/${found.details.uid}; HttpOnly; SameSite=Lax; Max-Age=600${found.issuer.startsWith('https:') ? '; Secure' : ''}`);
      const action = `${INTERACTION_PATH}/${found.details.uid}`;
      const origin = clientOrigin(found.client);
      if (found.details.prompt.name === 'login') return send(reply, signInPage({ action: `${action}/sign-in`, nonce, client: origin }));
      const signedIn = (found.details.lastSubmission as { signIn?: { companyId: string; roles: string[] } } | undefined)?.signIn;
      const redirect = new URL(String(found.details.params.redirect_uri)).origin;
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
      if (!request.body?.nonce || cookie(request, NONCE_COOKIE) !== request.body.nonce) {
        return send(reply, refusalPage('This form was not sent by the page this browser was given. Start again from the assistant.'), [], 403);
      }
      const signedIn = await verifySignInToken(app.config, request.body.token ?? '');
      const action = `${INTERACTION_PATH}/${found.details.uid}/sign-in`;
      const again = async (refusal: string, status = 401) => {
        // Failed sign-ins count per client address; past the limit the page says so (429).
        const limited = await failures?.call(app, request, reply).then(() => false, () => true);
        return limited
          ? send(reply, signInPage({ action, nonce: request.body.nonce, client: clientOrigin(found.client), refusal: 'Too many failed sign-ins from this address: wait a minute and try again.' }), [], 429)
          : send(reply, signInPage({ action, nonce: request.body.nonce, client: clientOrigin(found.client), refusal }), [], status);
      };
      if ('refusal' in signedIn) return again(signedIn.refusal);
      // A sign-in token works once, on any node: the store keeps its id until it expires.
      const tokens = new Adapter('SignInToken');
      await tokens.upsert(signedIn.jti, { jti: signedIn.jti }, Math.max(1, Math.ceil((signedIn.expiresAt - Date.now()) / 1000)));
      if (!(await consumeOauthPayload(app.store.db, 'SignInToken', signedIn.jti))) return again('This sign-in token was used already. Make a new one.');
      return finish(request, reply, found.provider, { login: { accountId: signedIn.sub }, signIn: { companyId: signedIn.companyId, roles: signedIn.roles } });
    });

    pages.post<{ Body: Record<string, string> }>(`${INTERACTION_PATH}/:uid/consent`, { config }, async (request, reply) => {
      const found = await interaction(request, reply);
      if (!found || found.details.prompt.name !== 'consent') return expired(reply);
      if (!request.body?.nonce || cookie(request, NONCE_COOKIE) !== request.body.nonce) {
        return send(reply, refusalPage('This form was not sent by the page this browser was given. Start again from the assistant.'), [], 403);
      }
      const redirect = new URL(String(found.details.params.redirect_uri)).origin;
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
        clientOrigin: clientOrigin(found.client),
        clientName: found.client?.clientName ?? null,
        scopes,
        roles: signedIn.roles,
        createdAt: now,
        expiresAt: now + app.config.OAUTH_GRANT_MAX_DAYS * 86_400_000,
      });
      return finish(request, reply, found.provider, { consent: { grantId } });
    });
  });
}

/** The scopes asked for (none: both) that the person's roles can use. */
function grantedScopes(asked: unknown, roles: readonly string[]): OauthScope[] {
  const wanted = typeof asked === 'string' && asked.trim() ? new Set(asked.trim().split(/\s+/)) : new Set<string>(OAUTH_SCOPES);
  return usableScopes(roles).filter((scope) => wanted.has(scope));
}

/** Where a client came from: a metadata document's host, or the host of a registered client's first redirect URI. */
function clientOrigin(client: { clientId: string; redirectUris?: readonly string[] } | undefined): string {
  if (!client) return 'An application';
  if (/^https:\/\//.test(client.clientId)) return new URL(client.clientId).host;
  const redirect = client.redirectUris?.[0];
  return redirect ? new URL(redirect).host : 'An application';
}
