import type { Kysely } from 'kysely';
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

/** Records a use of the grant now (the database's clock); false when there is no such grant. */
export async function touchMcpGrant(db: Kysely<Database>, grantId: string): Promise<boolean> {
  const { numAffectedRows } = await statementWithRetries(db, () => touchQuery.run(db, { grantId }));
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

/** Deletes at most `limit` grants expired by `atMs`, checking their time again as it deletes. */
export async function deleteExpiredGrants(db: Kysely<Database>, atMs: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('mcp_grants')
    .where('grant_id', 'in', (eb) => eb.selectFrom('mcp_grants').select('grant_id').where('expires_at', '<=', atMs).limit(limit))
    .where('expires_at', '<=', atMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
