import type { Kysely } from 'kysely';
import { preparedPages, type Page } from '../paging.js';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database, Row } from '../schema.js';
import { nowMs, statementWithRetries } from '../statements.js';

/**
 * The grants assistants hold at `/mcp`: one row per oidc-provider grant, with the company,
 * person and roles it acts for and where its client came from. Times are ms since the epoch;
 * a grant past `expiresAt` is not found, and the sweeper deletes it (oauth.ts).
 */
export interface McpGrant {
  grantId: string;
  companyId: string;
  sub: string;
  clientId: string;
  /** a client ID metadata document's host, or the host of a registered client's redirect URI */
  clientOrigin: string;
  /** the name the client gave itself: unverified */
  clientName: string | null;
  scopes: string[];
  roles: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number;
}

export type NewMcpGrant = Omit<McpGrant, 'lastUsedAt'>;

const grantOf = (row: Row<'mcp_grants'>): McpGrant => ({
  grantId: row.grant_id,
  companyId: row.company_id,
  sub: row.sub,
  clientId: row.client_id,
  clientOrigin: row.client_origin,
  clientName: row.client_name,
  scopes: row.scopes === '' ? [] : row.scopes.split(' '),
  roles: JSON.parse(row.roles) as string[],
  createdAt: Number(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  expiresAt: Number(row.expires_at),
});

export async function insertMcpGrant(db: Kysely<Database>, grant: NewMcpGrant): Promise<void> {
  await statementWithRetries(db, () =>
    db
      .insertInto('mcp_grants')
      .values({
        grant_id: grant.grantId,
        company_id: grant.companyId,
        sub: grant.sub,
        client_id: grant.clientId,
        client_origin: grant.clientOrigin,
        client_name: grant.clientName,
        scopes: grant.scopes.join(' '),
        roles: JSON.stringify(grant.roles),
        created_at: grant.createdAt,
        expires_at: grant.expiresAt,
      })
      .execute(),
  );
}

const findQuery = prepared((db, p: Placeholders<{ grantId: string }>) =>
  db.selectFrom('mcp_grants').selectAll().where('grant_id', '=', p.grantId).where('expires_at', '>', nowMs(db)),
);

/** The grant, unless it is unknown or past its time. */
export async function findMcpGrant(db: Kysely<Database>, grantId: string): Promise<McpGrant | undefined> {
  const row = await findQuery.takeFirst(db, { grantId });
  return row && grantOf(row);
}

const touchQuery = prepared((db, p: Placeholders<{ grantId: string }>) =>
  db.updateTable('mcp_grants').set({ last_used_at: nowMs(db) }).where('grant_id', '=', p.grantId),
);

const touchUntilQuery = prepared((db, p: Placeholders<{ grantId: string; expiresAt: number }>) =>
  db.updateTable('mcp_grants').set({ last_used_at: nowMs(db), expires_at: p.expiresAt }).where('grant_id', '=', p.grantId),
);

/**
 * Records a use of the grant now (the database's clock), and moves its end to `expiresAt`
 * when given (a grant ends once unused for a while); false when there is no such grant.
 */
export async function touchMcpGrant(db: Kysely<Database>, grantId: string, expiresAt?: number): Promise<boolean> {
  const { numAffectedRows } = await statementWithRetries(db, () =>
    expiresAt === undefined ? touchQuery.run(db, { grantId }) : touchUntilQuery.run(db, { grantId, expiresAt }),
  );
  return Number(numAffectedRows ?? 0) === 1;
}

/** Deletes the grant; false when there was none. */
export async function deleteMcpGrant(db: Kysely<Database>, grantId: string): Promise<boolean> {
  const result = await statementWithRetries(db, () => db.deleteFrom('mcp_grants').where('grant_id', '=', grantId).executeTakeFirst());
  return Number(result.numDeletedRows) === 1;
}

const listQuery = prepared((db, p: Placeholders<{ companyId: string; limit: number }>) =>
  db
    .selectFrom('mcp_grants')
    .selectAll()
    .where('company_id', '=', p.companyId)
    .where('expires_at', '>', nowMs(db))
    .orderBy('created_at', 'desc')
    .orderBy('grant_id')
    .limit(p.limit),
);

/** A company's grants that are not past their time, newest first, at most `limit`. */
export async function listMcpGrants(db: Kysely<Database>, companyId: string, limit = 100): Promise<McpGrant[]> {
  return (await listQuery.execute(db, { companyId, limit })).map(grantOf);
}

/** A grant as its company's administrators see it (McpGrantQuery): with the MCP tokens metered to the calls made under it. */
export type ListedMcpGrant = McpGrant & { tokensUsed: number };

const listedOf = (row: Row<'mcp_grants'>): ListedMcpGrant => ({ ...grantOf(row), tokensUsed: Number(row.tokens_used) });

const grantPages = preparedPages<Database, 'mcp_grants', { companyId: string }, Row<'mcp_grants'>>({
  from: (db, p) => db.selectFrom('mcp_grants').where('company_id', '=', p.companyId).where('expires_at', '>', nowMs(db)),
  select: (q) => q.selectAll('mcp_grants'),
  sortable: { CreatedDate: 'mcp_grants.created_at' },
  tiebreak: 'mcp_grants.grant_id',
});

/** A page of the company's grants that are not past their time, newest first, each with its tokens (McpGrantQuery). */
export async function pageMcpGrants(
  db: Kysely<Database>,
  companyId: string,
  request: { Skip?: number | null; Take?: number | null },
): Promise<Page<ListedMcpGrant>> {
  const page = await grantPages(db, { companyId }, { Skip: request.Skip, Take: request.Take, OrderByDesc: 'CreatedDate' });
  return { ...page, rows: page.rows.map(listedOf) };
}

const revokeQuery = prepared((db, p: Placeholders<{ companyId: string; grantId: string }>) =>
  db
    .deleteFrom('mcp_grants')
    .where('grant_id', '=', p.grantId)
    .where('company_id', '=', p.companyId)
    .where('expires_at', '>', nowMs(db))
    .returningAll(),
);

/**
 * Deletes the company's grant unless it is unknown, another company's or past its time, and
 * answers it as it was. Its tokens are refused from then on, since every call looks its grant
 * up (plugins/oauth.ts); the authorization server's own records of it go with it in the same
 * transaction (oauth.ts `deleteGrantPayloads`). Of two revocations of one grant, one finds it.
 */
export async function revokeMcpGrant(db: Kysely<Database>, companyId: string, grantId: string): Promise<ListedMcpGrant | undefined> {
  const row = await statementWithRetries(db, () => revokeQuery.takeFirst(db, { companyId, grantId }));
  return row && listedOf(row);
}

const addTokensQuery = prepared((db, p: Placeholders<{ grantId: string; tokens: number }>) =>
  db
    .updateTable('mcp_grants')
    .set((eb) => ({ tokens_used: eb('tokens_used', '+', p.tokens) }))
    .where('grant_id', '=', p.grantId),
);

/**
 * Adds `tokens` metered to a call made under the grant, in one UPDATE that adds to the value the
 * row holds when it runs, so concurrent additions on any node each count once. A grant revoked
 * meanwhile has no row to add to, and nothing is added.
 */
export async function addMcpGrantTokens(db: Kysely<Database>, grantId: string, tokens: number): Promise<void> {
  await statementWithRetries(db, () => addTokensQuery.run(db, { grantId, tokens }));
}

/** Deletes at most `limit` grants expired by `atMs`, checking their time again as it deletes. */
export async function deleteExpiredGrants(db: Kysely<Database>, atMs: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('mcp_grants')
    .where('grant_id', 'in', (eb) => eb.selectFrom('mcp_grants').select('grant_id').where('expires_at', '<=', atMs).limit(limit))
    .where('expires_at', '<=', atMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
