import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001_initial.js';
import { printoutNameOrder } from './0002_printout_name_order.js';
import { mcpUsageDaily } from './0003_mcp_usage_daily.js';
import { webhookDeliveries } from './0004_webhook_deliveries.js';
import { eventContext } from './0005_event_context.js';
import { idempotencyKeys } from './0006_idempotency_keys.js';
import { oauth } from './0007_oauth.js';
import { mcpGrantTokens } from './0008_mcp_grant_tokens.js';

/** An expand migration adds (tables, nullable columns, indexes, defaults); a contract one removes or tightens. */
export type MigrationKind = 'expand' | 'contract';

/**
 * A migration with its kind. `transaction: false` runs it outside a transaction, which an
 * index built concurrently on PostgreSQL needs (helpers.ts, indexOnExistingTable): its
 * statements must then be safe to run again.
 */
export type KindedMigration = Migration & { kind: MigrationKind; transaction?: false };

const expand = (migration: Migration): KindedMigration => ({ ...migration, kind: 'expand' });

/**
 * Every migration this code knows, by name, with its kind (docs/operating.md, "Migrations: expand and contract").
 * Listed statically rather than read from the folder so the same list works from `src/` under
 * tsx and from the compiled `dist/`. Add new migrations at the end with the next number; never
 * rename or edit a released one. 0004 also re-encodes webhook secrets, keeping their bytes,
 * which older code reads the same: an expand migration too.
 */
export const migrations: Readonly<Record<string, KindedMigration>> = {
  '0001_initial': expand(initial),
  '0002_printout_name_order': expand(printoutNameOrder),
  '0003_mcp_usage_daily': expand(mcpUsageDaily),
  '0004_webhook_deliveries': expand(webhookDeliveries),
  '0005_event_context': expand(eventContext),
  '0006_idempotency_keys': expand(idempotencyKeys),
  '0007_oauth': expand(oauth),
  '0008_mcp_grant_tokens': expand(mcpGrantTokens),
};

/** This code's version: the last migration it knows. */
export const LAST_MIGRATION = Object.keys(migrations).at(-1)!;

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return { ...migrations };
  },
};
