import { OAUTH_SCOPES, type OauthScope } from '../domain/caller.js';
import { found } from '../domain/refusals.js';
import { pageMcpGrants, revokeMcpGrant, type ListedMcpGrant } from '../store/repositories/mcp-grants.js';
import { deleteGrantPayloads } from '../store/repositories/oauth.js';
import type { Answer } from '../store/prepared.js';
import { envelope } from './query.js';
import type { HandlersOf, Schemas } from './types.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isScope = (scope: string): scope is OauthScope => (OAUTH_SCOPES as readonly string[]).includes(scope);

/** A grant → McpGrant: times (ms since the epoch) as ISO dates; the client's own name as it gave it. */
export const toMcpGrant = (grant: ListedMcpGrant) =>
  ({
    Id: grant.grantId,
    ClientId: grant.clientId,
    ClientOrigin: grant.clientOrigin,
    ClientName: grant.clientName ?? undefined,
    Sub: grant.sub,
    Scopes: grant.scopes.filter(isScope),
    CreatedDate: iso(grant.createdAt),
    LastUsedDate: grant.lastUsedAt === null ? undefined : iso(grant.lastUsedAt),
    ExpiresDate: iso(grant.expiresAt),
    TokensUsed: grant.tokensUsed,
  } satisfies Answer<Schemas['McpGrant']>);

export const mcpGrantHandlers: HandlersOf<'McpGrantQuery' | 'DeleteMcpGrant'> = {
  /** The company's grants that have not ended, newest first, each with the tokens metered under it. */
  async McpGrantQuery({ query, companyId: company, store }) {
    return envelope(await pageMcpGrants(store.db, company, query), toMcpGrant);
  },

  /**
   * Revokes the grant: its row (which every call under it looks up, so its access tokens end
   * now) and the authorization server's records of it (the Grant, refresh tokens, codes), in the
   * write's one transaction. Another company's grant, an ended or unknown one, is 404.
   */
  async DeleteMcpGrant({ params, companyId: company, store }) {
    const grant = found(await revokeMcpGrant(store.db, company, params.Id), 'Grant not found.');
    await deleteGrantPayloads(store.db, grant.grantId);
    return toMcpGrant(grant);
  },
};
