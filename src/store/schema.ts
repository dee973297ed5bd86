import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../generated/db.js';

export type { Bool, IsoDate, Timespan } from './column-types.js';

/**
 * The store's tables as Kysely sees them (table name → row type), generated from what the
 * migrations create. The storage conventions (dates, flags, ids, company_id) and what each
 * column means are in docs/decisions.md, "Storage conventions and column meanings".
 */
export type Database = DB;

export type TableName = keyof Database;

const PARENTS_FIRST = [
  'companies',
  'categories',
  'company_categories',
  'billing_methods',
  'billing_method_countries',
  'message_types',
  'services',
  'tags',
  'customers',
  'customer_tags',
  'resources',
  'time_exceptions',
  'time_exception_resources',
  'bookings',
  'booking_resources',
  'resource_types',
  'resource_type_resources',
  'custom_fields',
  'custom_field_values',
  'custom_field_services',
  'articles',
  'article_services',
  'rebate_codes',
  'rebate_code_days',
  'rebate_code_services',
  'rebate_code_customers',
  'rebate_code_transactions',
  'payment_logs',
  'printouts',
  'message_templates',
  'message_template_services',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'mcp_usage',
  'mcp_usage_daily',
  'idempotency_keys',
  'oauth_payloads',
  'oauth_keys',
  'mcp_grants',
] as const satisfies readonly TableName[];

/** The store's own bookkeeping (versions.ts): which migration is of which kind, which nodes run. */
export const BOOKKEEPING_TABLES = ['migration_kinds', 'store_nodes'] as const satisfies readonly TableName[];

/**
 * Fails to compile, naming the table, when a migration adds a table the list above leaves
 * out (a name that is no table fails the `satisfies` above).
 */
type EveryTableListed<Unlisted extends never> = Unlisted;
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- it exists to fail compiling
type UnlistedTables = EveryTableListed<Exclude<TableName, (typeof PARENTS_FIRST)[number] | (typeof BOOKKEEPING_TABLES)[number]>>;

/** Tables that the running service fills (the webhook outbox, the keys of retried writes, OAuth's), never an import or the demo data. */
export const OUTBOX_TABLES: readonly TableName[] = ['webhook_deliveries', 'webhook_attempts', 'idempotency_keys', 'oauth_payloads', 'oauth_keys', 'mcp_grants'];

/** Every table, parents before children (the order imports insert in). */
export const TABLE_NAMES: readonly TableName[] = PARENTS_FIRST;

/** Row shapes for repositories: what a select returns, what an insert takes. */
export type Row<T extends TableName> = Selectable<Database[T]>;
export type NewRow<T extends TableName> = Insertable<Database[T]>;
