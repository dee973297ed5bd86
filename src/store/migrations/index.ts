import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001_initial.js';
import { printoutNameOrder } from './0002_printout_name_order.js';
import { mcpUsageDaily } from './0003_mcp_usage_daily.js';
import { webhookDeliveries } from './0004_webhook_deliveries.js';
import { eventContext } from './0005_event_context.js';
import { idempotencyKeys } from './0006_idempotency_keys.js';

/**
 * Every migration this code knows, by name. Listed statically rather than read from the
 * folder so the same list works from `src/` under tsx and from the compiled `dist/`.
 * Add new migrations at the end with the next number; never rename or edit a released one.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_printout_name_order': printoutNameOrder,
  '0003_mcp_usage_daily': mcpUsageDaily,
  '0004_webhook_deliveries': webhookDeliveries,
  '0005_event_context': eventContext,
  '0006_idempotency_keys': idempotencyKeys,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return { ...migrations };
  },
};
