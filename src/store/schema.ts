import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../generated/db.js';

export type { Bool, IsoDate, Timespan } from './column-types.js';

/**
 * The store's tables as Kysely sees them (table name → row type). The migrations in
 * ./migrations are the one description of the tables: src/generated/db.ts is generated from
 * a database they produced (`npm run generate`; `npm run check:generated` fails when it is
 * stale), so a column exists in the types exactly when a migration creates it.
 *
 * Storage conventions, chosen so the same rows work on SQLite now and PostgreSQL later:
 * - dates are ISO 8601 UTC TEXT (`2026-11-21T14:00:00.000Z`, always from `toISOString()`,
 *   so they compare correctly as strings), typed `IsoDate`; timespans are TEXT `hh:mm:ss`,
 *   typed `Timespan`. The database cannot tell these from other text, so the generator
 *   recognises them by column name (scripts/db-column-types.ts): name a new date column
 *   `…_date`, `…_at`, `created`, `updated`, `…_from`, `…_to`, a time of day `…_time`;
 * - booleans are INTEGER 0/1, CHECK constrained (migrations/helpers.ts `flag`), typed `Bool`;
 * - integer ids are generated when an insert leaves them out (`Generated<number>`),
 *   guid ids (companies, customers) are lower-case TEXT;
 * - every company-owned row carries `company_id`; a lookup by id always adds it, so an id
 *   of another company is never found.
 *
 * What columns mean, where the name does not say it:
 * - companies.mcp_token_limit overrides MCP_TOKEN_LIMIT for the company when set.
 * - billing_method_countries.country_id: the country code as given (e.g. `SE`).
 * - message_types.send_method_id: 1 = Email, 2 = SMS.
 * - customers.comments: free text; CreateArticleRebateCode appends the differing details
 *   supplied for an existing customer here instead of changing the profile.
 * - tags.active: DeleteTag sets 0 (soft delete). resources.active: DeleteResource with
 *   Force sets 0 when bookings block deletion.
 * - resources.resource_category: 1 = Object, 2 = Person, 3 = Room, 4 = Relay.
 * - bookings.status_id: BookingStatusEnum 1..10; 2 Unbooked and 4 Canceled do not block
 *   deleting a resource.
 * - resource_type_resources.priority: null = no priority, a random resource is taken.
 * - custom_fields.column_name / table_name: the API's `Column` / `Table`, renamed
 *   because both are SQL reserved words; data_type e.g. TextBox (the default), DropDown.
 * - articles.article_type_id: 3 PunchTicket, 4 ValueCard, 5 GiftCard can become rebate
 *   codes, others cannot; amount = number of uses (punch tickets); valid_days = days a
 *   rebate code created from the article stays valid.
 * - rebate_codes: sign is the code as entered, sign_key it upper-cased (signs are unique per
 *   company regardless of case); type_id 1 Percent, 2 Currency, 3 PunchTicket,
 *   4 ValueCard, 5 GiftCard; status_id 1 Active, 2 Inactive, 3 Expired; from_time/to_time
 *   a daily window, null = all day; max_number_of_uses(_per_customer) 0 = unlimited (the
 *   wire field is a non-nullable int); remaining_amount is the value left on value and
 *   gift cards (types 4, 5), remaining_usage the uses left on punch tickets (type 3), null
 *   for other types; currency_sign is RebateCodeCurrencySign (e.g. `kr`); receiver_* the
 *   promo code receiver (CreateArticleRebateCode).
 * - rebate_code_days.day_of_week: 1 = Monday .. 7 = Sunday; no rows = valid every day.
 * - rebate_code_transactions.amount / usage: value / uses changed, positive for an
 *   increase, negative for a decrease.
 * - message_templates.sender: the e-mail sender, always null for SMS message types;
 *   language `sv` or `en`.
 * - webhook_endpoints.event_types: JSON array of event type names; secret `whsec_` + base64.
 * - webhook_deliveries / webhook_attempts: the webhook outbox and its attempts (migration 0004).
 * - mcp_usage_daily: a company's MCP tokens per UTC day (`day` is YYYY-MM-DD), kept by
 *   triggers on mcp_usage (migration 0003).
 * - idempotency_keys: a company's Idempotency-Key, its request's fingerprint and the answer
 *   stored for it; expires_at in ms since the epoch (migration 0006).
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
] as const satisfies readonly TableName[];

/**
 * Fails to compile, naming the table, when a migration adds a table the list above leaves
 * out (a name that is no table fails the `satisfies` above).
 */
type EveryTableListed<Unlisted extends never> = Unlisted;
type UnlistedTables = EveryTableListed<Exclude<TableName, (typeof PARENTS_FIRST)[number]>>;

/** Tables that writes through the API fill (the webhook outbox, the keys of retried writes), never an import or the demo data. */
export const OUTBOX_TABLES: readonly TableName[] = ['webhook_deliveries', 'webhook_attempts', 'idempotency_keys'];

/** Every table, parents before children (the order imports insert in). */
export const TABLE_NAMES: readonly TableName[] = PARENTS_FIRST;

/** Row shapes for repositories: what a select returns, what an insert takes. */
export type Row<T extends TableName> = Selectable<Database[T]>;
export type NewRow<T extends TableName> = Insertable<Database[T]>;
