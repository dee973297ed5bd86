import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { prepared, type Placeholders } from '../prepared.js';
import { isPostgres, nowMs } from '../statements.js';

/**
 * The keys of retried writes (docs/decisions.md, "Retried writes"). A key is one row per
 * company and key; the primary key decides which request claimed it first, on any node.
 */

/** A company's key: the scope a request's Idempotency-Key is claimed in. */
export interface KeyScope {
  companyId: string;
  key: string;
}

/** The request that claims a key, and for how long. */
export interface KeyClaim extends KeyScope {
  operationId: string;
  fingerprint: string;
  ttlMs: number;
}

/** An answer kept for a key: the status and the result (or refusal) as JSON. */
export interface StoredAnswer {
  status: number;
  answer: string;
}

/** What a key holds when another request claimed it first. */
export interface KeptKey {
  operationId: string;
  fingerprint: string;
  /** undefined while the first request runs (only seen across engines' edge cases) */
  answer?: StoredAnswer;
}

/** How long the claim of a key in use waits for the request that holds it (PostgreSQL's lock_timeout). */
export const CLAIM_WAIT_MS = 2000;


/**
 * Claims the key for `claim`, storing `answer` with it when given: true when this request
 * holds it now (a new key, or one past its time, whose row it takes over), false when a live
 * key was there. A claim of a key another transaction is claiming waits for that one to end:
 * on PostgreSQL at most CLAIM_WAIT_MS (lock_timeout, set for this statement alone: it is set
 * before the insert waits and set back as the claimed row is returned), on SQLite as long as
 * the busy timeout.
 */
export async function claimKey(db: Kysely<Database>, claim: KeyClaim, answer?: StoredAnswer): Promise<boolean> {
  const rows = await claimQuery.execute(db, { ...claim, status: answer?.status ?? null, answer: answer?.answer ?? null });
  return rows.length > 0;
}

type ClaimValues = KeyClaim & { status: number | null; answer: string | null };

const claimQuery = prepared((db, p: Placeholders<ClaimValues>) => {
  const now = nowMs(db);
  const conflict = sql`on conflict (company_id, key) do update set operation_id = excluded.operation_id,
      fingerprint = excluded.fingerprint, status = excluded.status, answer = excluded.answer, expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= ${now}`;
  return isPostgres(db)
    ? sql<{ claimed: unknown }>`with prior as materialized (select current_setting('lock_timeout') as timeout),
        wait as (select set_config('lock_timeout', ${sql.lit(`${CLAIM_WAIT_MS}ms`)}, true) from prior)
      insert into idempotency_keys (company_id, key, operation_id, fingerprint, status, answer, expires_at)
      select ${p.companyId}::text, ${p.key}::text, ${p.operationId}::text, ${p.fingerprint}::text,
        ${p.status}::integer, ${p.answer}::text, ${now} + ${p.ttlMs}::bigint from wait
      ${conflict}
      returning set_config('lock_timeout', (select timeout from prior), true) as claimed`
    : sql<{ claimed: unknown }>`insert into idempotency_keys (company_id, key, operation_id, fingerprint, status, answer, expires_at)
      values (${p.companyId}, ${p.key}, ${p.operationId}, ${p.fingerprint}, ${p.status}, ${p.answer}, ${now} + ${p.ttlMs})
      ${conflict}
      returning 1 as claimed`;
});

/** What the key holds (read after a claim found it taken). */
export async function keptKey(db: Kysely<Database>, scope: KeyScope): Promise<KeptKey | undefined> {
  const row = await keptQuery.takeFirst(db, scope);
  if (!row) return undefined;
  const answer = row.status === null || row.answer === null ? undefined : { status: row.status, answer: row.answer };
  return { operationId: row.operation_id, fingerprint: row.fingerprint, answer };
}

const keptQuery = prepared((db, p: Placeholders<KeyScope>) =>
  db
    .selectFrom('idempotency_keys')
    .select(['operation_id', 'fingerprint', 'status', 'answer'])
    .where('company_id', '=', p.companyId)
    .where('key', '=', p.key),
);

/** Stores the answer of the write that claimed the key, in that write's transaction. */
export async function storeAnswer(db: Kysely<Database>, scope: KeyScope, answer: StoredAnswer): Promise<void> {
  await storeQuery.run(db, { ...scope, ...answer });
}

const storeQuery = prepared((db, p: Placeholders<KeyScope & StoredAnswer>) =>
  db
    .updateTable('idempotency_keys')
    .set({ status: p.status, answer: p.answer })
    .where('company_id', '=', p.companyId)
    .where('key', '=', p.key),
);

/**
 * Deletes at most `batch` keys past their time, checking their time again as it deletes
 * (a key taken over meanwhile lives on); answers how many went.
 */
export async function deleteExpiredKeys(db: Kysely<Database>, batch: number): Promise<number> {
  const now = nowMs(db);
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('company_id', 'key'),
        'in',
        selectFrom('idempotency_keys').select(['company_id', 'key']).where('expires_at', '<=', now).limit(batch).$asTuple('company_id', 'key'),
      ),
    )
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
