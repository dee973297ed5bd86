import { createHash } from 'node:crypto';
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { prepared, type Placeholders } from '../prepared.js';
import type { Database } from '../schema.js';
import { nowMs, statementWithRetries } from '../statements.js';
import { deleteExpiredGrants, deleteMcpGrant } from './mcp-grants.js';

/**
 * The authorization server's storage (docs/decisions.md, "Assistants sign in with OAuth"):
 * oidc-provider's records of every model in `oauth_payloads`, and the rows of its keys.
 * Expiry and consumption are read by the database's clock, so every node agrees on them.
 */

type Key = { model: string; id: string };

/**
 * The id a record is stored under. A code's, a refresh token's or a session's id is the
 * credential itself, so the store keeps its SHA-256 alone: whoever reads the table holds no
 * token. A client's and a grant's ids are no credentials, and other rows refer to them.
 */
export function storedId(model: string, id: string): string {
  return model === 'Client' || model === 'Grant' ? id : createHash('sha256').update(id).digest('base64url');
}
type UpsertValues = Key & { payload: string; grantId: string | null; uid: string | null; ttlMs: number | null; consumedAt: number | null };

/** Not expired: no expiry, or one still ahead. */
const live = (db: Kysely<Database>) => (eb: ExpressionBuilder<Database, 'oauth_payloads'>): Expression<SqlBool> =>
  eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowMs(db))]);

// A payload saved again (a session, a grant) keeps its first consumption: no save undoes one.
const upsertQuery = prepared((db, p: Placeholders<UpsertValues>) =>
  db
    .insertInto('oauth_payloads')
    .values({
      model: p.model,
      id: p.id,
      payload: p.payload,
      grant_id: p.grantId,
      uid: p.uid,
      expires_at: sql<number>`${nowMs(db)} + cast(${p.ttlMs} as bigint)`,
      consumed_at: p.consumedAt,
    })
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet((eb) => ({
        payload: eb.ref('excluded.payload'),
        grant_id: eb.ref('excluded.grant_id'),
        uid: eb.ref('excluded.uid'),
        expires_at: eb.ref('excluded.expires_at'),
        consumed_at: sql<number | null>`coalesce(oauth_payloads.consumed_at, excluded.consumed_at)`,
      })),
    ),
);

const findQuery = prepared((db, p: Placeholders<Key>) =>
  db.selectFrom('oauth_payloads').select(['payload', 'consumed_at']).where('model', '=', p.model).where('id', '=', p.id).where(live(db)),
);

const findByUidQuery = prepared((db, p: Placeholders<{ model: string; uid: string }>) =>
  db.selectFrom('oauth_payloads').select(['payload', 'consumed_at']).where('model', '=', p.model).where('uid', '=', p.uid).where(live(db)).limit(1),
);

// The first consumption alone changes the row: a second finds consumed_at set and changes nothing.
const consumeQuery = prepared((db, p: Placeholders<Key>) =>
  db.updateTable('oauth_payloads').set({ consumed_at: nowMs(db) }).where('model', '=', p.model).where('id', '=', p.id).where('consumed_at', 'is', null),
);

/** How long a registered client is kept unused. */
export const CLIENT_UNUSED_MS = 30 * 86_400_000;

const keepClientQuery = prepared((db, p: Placeholders<{ id: string; ttlMs: number }>) =>
  db.updateTable('oauth_payloads').set({ expires_at: sql<number>`${nowMs(db)} + cast(${p.ttlMs} as bigint)` }).where('model', '=', 'Client').where('id', '=', p.id),
);

const destroyQuery = prepared((db, p: Placeholders<Key>) =>
  db.deleteFrom('oauth_payloads').where('model', '=', p.model).where('id', '=', p.id),
);

const revokeQuery = prepared((db, p: Placeholders<{ model: string; grantId: string }>) =>
  db.deleteFrom('oauth_payloads').where('model', '=', p.model).where('grant_id', '=', p.grantId),
);

// The Grant's own record has the grant's id as its id; the others (tokens, codes) name it in grant_id.
const grantPayloadsQuery = prepared((db, p: Placeholders<{ grantId: string }>) =>
  db
    .deleteFrom('oauth_payloads')
    .where((eb) => eb.or([eb('grant_id', '=', p.grantId), eb.and([eb('model', '=', 'Grant'), eb('id', '=', p.grantId)])])),
);

/**
 * Deletes every record of the grant, of every model: the Grant itself, its refresh tokens,
 * authorization codes and access tokens. Answers how many went. DeleteMcpGrant runs it in the
 * transaction that deletes the grant's row (mcp-grants.ts `revokeMcpGrant`).
 */
export async function deleteGrantPayloads(db: Kysely<Database>, grantId: string): Promise<number> {
  const result = await statementWithRetries(db, () => grantPayloadsQuery.run(db, { grantId }));
  return Number(result.numAffectedRows ?? 0);
}

/** A stored payload as oidc-provider saved it, with `consumed` (seconds) once consumed. */
function payloadOf(row: { payload: string; consumed_at: number | string | null } | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
  return payload;
}

/** Consumes the record: true when this call did, false when it was consumed before (or is gone). */
export async function consumeOauthPayload(db: Kysely<Database>, model: string, id: string): Promise<boolean> {
  const { numAffectedRows } = await statementWithRetries(db, () => consumeQuery.run(db, { model, id: storedId(model, id) }));
  return Number(numAffectedRows ?? 0) === 1;
}

/** oidc-provider's `adapter`: a class it constructs once per model (Session, Grant, AccessToken, …). */
export function oauthAdapter(store: { db: Kysely<Database> }, options: { consumedAlready?: () => Error } = {}): AdapterConstructor {
  const { db } = store;
  return class OauthAdapter implements Adapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // `consumed` lives in its own column, set once: the JSON keeps the rest.
      const { consumed, ...rest } = payload;
      const values: UpsertValues = {
        model: this.model,
        id: storedId(this.model, id),
        payload: JSON.stringify(rest),
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        ttlMs: typeof expiresIn === 'number' ? Math.round(expiresIn * 1000) : this.model === 'Client' ? CLIENT_UNUSED_MS : null,
        consumedAt: !consumed ? null : typeof consumed === 'number' ? consumed * 1000 : Date.now(),
      };
      await statementWithRetries(db, () => upsertQuery.run(db, values));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const found = payloadOf(await findQuery.takeFirst(db, { model: this.model, id: storedId(this.model, id) }));
      // A registered client unused for CLIENT_UNUSED_MS goes: each use moves its end on.
      if (found && this.model === 'Client') await statementWithRetries(db, () => keepClientQuery.run(db, { id, ttlMs: CLIENT_UNUSED_MS }));
      return found;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await findByUidQuery.takeFirst(db, { model: this.model, uid }));
    }

    /** The device flow is off: no record has a user code. */
    async findByUserCode(_userCode: string): Promise<undefined> {
      return undefined;
    }

    /** Of two redemptions at once (on any nodes), the one whose update finds it consumed is refused. */
    async consume(id: string): Promise<void> {
      if (!(await consumeOauthPayload(db, this.model, id)) && options.consumedAlready) throw options.consumedAlready();
    }

    async destroy(id: string): Promise<void> {
      await statementWithRetries(db, () => destroyQuery.run(db, { model: this.model, id: storedId(this.model, id) }));
      // A grant oidc-provider revokes (a code or refresh token replayed, a revocation) ends
      // its access tokens too: /mcp checks the grant's row on every call.
      if (this.model === 'Grant') await deleteMcpGrant(db, id);
    }

    /** oidc-provider calls this on each model's adapter in turn: this model's records alone go. */
    async revokeByGrantId(grantId: string): Promise<void> {
      await statementWithRetries(db, () => revokeQuery.run(db, { model: this.model, grantId }));
    }
  };
}

/** Deletes at most `limit` payloads expired by `atMs`, checking their time again as it deletes. */
async function deleteExpiredPayloads(db: Kysely<Database>, atMs: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('oauth_payloads')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('model', 'id'),
        'in',
        selectFrom('oauth_payloads').select(['model', 'id']).where('expires_at', '<=', atMs).limit(limit).$asTuple('model', 'id'),
      ),
    )
    .where('expires_at', '<=', atMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * One bounded step of the sweeper: at most `limit` rows in all, expired payloads first and
 * then expired grants; answers how many went (fewer than `limit`: nothing is left to sweep).
 */
export async function sweepExpiredOauth(store: { db: Kysely<Database> }, atMs: number, limit: number): Promise<number> {
  const payloads = await statementWithRetries(store.db, () => deleteExpiredPayloads(store.db, atMs, limit));
  if (payloads >= limit) return payloads;
  return payloads + (await statementWithRetries(store.db, () => deleteExpiredGrants(store.db, atMs, limit - payloads)));
}

export type OauthKeyKind = 'signing' | 'cookie';

/** A key as stored: its material encrypted (auth/oauth-keys.ts), `createdAt` in ms. */
export interface StoredOauthKey {
  kind: OauthKeyKind;
  generation: number;
  key: string;
  createdAt: number;
}

/** Every stored key, each kind's newest generation first. */
export async function listOauthKeys(db: Kysely<Database>): Promise<StoredOauthKey[]> {
  const rows = await db.selectFrom('oauth_keys').selectAll().orderBy('kind').orderBy('generation', 'desc').execute();
  return rows.map((row) => ({ kind: row.kind as OauthKeyKind, generation: Number(row.generation), key: row.key, createdAt: Number(row.created_at) }));
}

/** Stores a generation's key unless another node stored that generation first: true when this one did. */
export async function insertOauthKey(db: Kysely<Database>, key: StoredOauthKey): Promise<boolean> {
  const result = await statementWithRetries(db, () =>
    db
      .insertInto('oauth_keys')
      .values({ kind: key.kind, generation: key.generation, key: key.key, created_at: key.createdAt })
      .onConflict((oc) => oc.columns(['kind', 'generation']).doNothing())
      .executeTakeFirst(),
  );
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Deletes a kind's generations older than `generation`. */
export async function deleteOauthKeysBefore(db: Kysely<Database>, kind: OauthKeyKind, generation: number): Promise<void> {
  await statementWithRetries(db, () => db.deleteFrom('oauth_keys').where('kind', '=', kind).where('generation', '<', generation).execute());
}
