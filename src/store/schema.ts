import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * The store's tables as Kysely sees them (table name → row type).
 *
 * Storage conventions, chosen so the same rows work on SQLite now and PostgreSQL later:
 * - dates are ISO 8601 UTC TEXT (`2026-11-21T14:00:00.000Z`, always from `toISOString()`,
 *   so they compare correctly as strings); timespans are TEXT `hh:mm:ss`;
 * - booleans are INTEGER 0/1 (CHECK constrained), typed here as `Bool`;
 * - integer ids are generated when an insert leaves them out (`Generated<number>`),
 *   guid ids (companies, customers) are lower-case TEXT;
 * - every company-owned row carries `company_id`; a lookup by id always adds it, so an id
 *   of another company is never found.
 * Migrations in ./migrations create exactly these columns; keep both in step.
 */

/** 0 = false, 1 = true. */
export type Bool = 0 | 1;
/** ISO 8601 UTC date-time text. */
export type IsoDate = string;
/** Time of day `hh:mm:ss`. */
export type Timespan = string;

export interface CompaniesTable {
  id: string;
  name: string;
  site_path: string | null;
  payment_provider_id: number | null;
  /** Overrides MCP_TOKEN_LIMIT for this company when set. */
  mcp_token_limit: number | null;
  created: IsoDate;
}

export interface CategoriesTable {
  id: Generated<number>;
  name: string;
  normalized_name: string;
  active: Generated<Bool>;
}

export interface CompanyCategoriesTable {
  company_id: string;
  category_id: number;
}

export interface BillingMethodsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
}

export interface BillingMethodCountriesTable {
  billing_method_id: number;
  /** Country code as given (e.g. `SE`). */
  country_id: string;
}

export interface MessageTypesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  max_characters: number;
  default_text: string | null;
  /** 1 = Email, 2 = SMS. */
  send_method_id: number;
}

export interface ServicesTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  description: string | null;
  image_url: string | null;
  active: Generated<Bool>;
}

export interface CustomersTable {
  id: string;
  company_id: string;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  phone: string | null;
  social_user_name: string | null;
  image_url: string | null;
  personal_identity_number: string | null;
  corporate_identity_number: string | null;
  invoice_address1: string | null;
  invoice_address2: string | null;
  invoice_city: string | null;
  invoice_postal_code: string | null;
  invoice_country_code: string | null;
  subscribed_to_newsletter: Generated<Bool>;
  /**
   * Free text; CreateArticleRebateCode appends the differing details supplied for an
   * existing customer here instead of changing the profile.
   */
  comments: string | null;
  created: IsoDate;
}

export interface CustomerTagsTable {
  customer_id: string;
  tag_id: number;
}

export interface TagsTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  scope: number | null;
  color: string | null;
  sort_order: Generated<number>;
  /** DeleteTag sets 0 (soft delete). */
  active: Generated<Bool>;
  created_date: IsoDate;
}

export interface ResourcesTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  description: string | null;
  /** DeleteResource with Force sets 0 when bookings block deletion. */
  active: Generated<Bool>;
  color: string | null;
  email: string | null;
  image_url: string | null;
  mobile_phone: string | null;
  access_group: string | null;
  email_notification: Generated<Bool>;
  sms_notification: Generated<Bool>;
  send_email_reminder: Bool | null;
  send_sms_reminder: Bool | null;
  /** 1 = Object, 2 = Person, 3 = Room, 4 = Relay. */
  resource_category: number | null;
  relay_starts_before_minutes: number | null;
  created: IsoDate;
  updated: IsoDate;
}

export interface TimeExceptionsTable {
  id: Generated<number>;
  company_id: string;
  is_recurring: Generated<Bool>;
  is_block: Generated<Bool>;
  reason_text: string | null;
  reason_text_public: string | null;
  from: IsoDate;
  to: IsoDate;
}

export interface TimeExceptionResourcesTable {
  time_exception_id: number;
  resource_id: number;
}

export interface BookingsTable {
  id: Generated<number>;
  company_id: string;
  service_id: number;
  from: IsoDate;
  to: IsoDate;
  booked_spots: Generated<number>;
  total_spots: Generated<number>;
  pause_after_in_minutes: Generated<number>;
  /** BookingStatusEnum value 1..10; 2 Unbooked and 4 Canceled do not block deleting a resource. */
  status_id: number;
  customer_id: string | null;
}

export interface BookingResourcesTable {
  booking_id: number;
  resource_id: number;
}

export interface ResourceTypesTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  description: string | null;
  active: Generated<Bool>;
  created: IsoDate;
  updated: IsoDate;
}

export interface ResourceTypeResourcesTable {
  resource_type_id: number;
  resource_id: number;
  /** Null: no priority, a random resource is taken when booking. */
  priority: number | null;
}

export interface CustomFieldsTable {
  id: Generated<number>;
  company_id: string;
  group_id: number | null;
  field_id: number;
  name: string;
  width: number | null;
  /** The document's `Column` (renamed: `column` is an SQL reserved word). */
  column_name: string | null;
  description: string | null;
  /** e.g. TextBox (the default), DropDown. */
  data_type: Generated<string>;
  default_value: string | null;
  is_mandatory: Generated<Bool>;
  mandatory_error_message: string | null;
  max_length: number | null;
  multiple_line_text: Generated<Bool>;
  reg_ex: string | null;
  reg_ex_id: number | null;
  reg_ex_error_message: string | null;
  is_public: Generated<Bool>;
  is_hidden: Generated<Bool>;
  sort_order: Generated<number>;
  /** The document's `Table` (renamed: `table` is an SQL reserved word). */
  table_name: string | null;
}

export interface CustomFieldValuesTable {
  id: Generated<number>;
  custom_field_id: number;
  active: Generated<Bool>;
  sort_order: Generated<number>;
  value: string;
}

export interface CustomFieldServicesTable {
  custom_field_id: number;
  service_id: number;
}

export interface ArticlesTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  /** 3 PunchTicket, 4 ValueCard, 5 GiftCard can become rebate codes; others cannot. */
  article_type_id: number;
  description: string | null;
  image_url: string | null;
  active: Generated<Bool>;
  /** Number of uses (punch tickets). */
  amount: number | null;
  price: number | null;
  currency_id: string | null;
  sort_order: Generated<number>;
  updated_date: IsoDate;
  created_date: IsoDate;
  duration: number | null;
  price_sign: string | null;
  vat: number | null;
  /** Days a rebate code created from the article stays valid. */
  valid_days: number | null;
  max_quantity: number | null;
  send_notification: Generated<Bool>;
  notification_email: string | null;
}

export interface ArticleServicesTable {
  id: Generated<number>;
  company_id: string;
  article_id: number;
  service_id: number;
}

export interface RebateCodesTable {
  id: Generated<number>;
  company_id: string;
  /** The code text as entered. */
  sign: string;
  /** `sign` upper-cased: signs are unique per company regardless of case. */
  sign_key: string;
  /** 1 Percent, 2 Currency, 3 PunchTicket, 4 ValueCard, 5 GiftCard. */
  type_id: number;
  value: number;
  /** 1 Active, 2 Inactive, 3 Expired. */
  status_id: Generated<number>;
  name: string | null;
  valid_from: IsoDate;
  valid_to: IsoDate;
  /** Daily window; null = all day. */
  from_time: Timespan | null;
  to_time: Timespan | null;
  /** 0 = unlimited (the wire field is a non-nullable int). */
  max_number_of_uses: Generated<number>;
  /** 0 = unlimited. */
  max_number_of_uses_per_customer: Generated<number>;
  number_of_uses_used: Generated<number>;
  /** Value left on value and gift cards (types 4, 5); null for other types. */
  remaining_amount: number | null;
  /** Uses left on punch tickets (type 3); null for other types. */
  remaining_usage: number | null;
  personal_note: string | null;
  article_id: number | null;
  payment_received: Generated<Bool>;
  /** RebateCodeCurrencySign, e.g. `kr`. */
  currency_sign: string | null;
  price_sign: string | null;
  created_by: string | null;
  updated_by: string | null;
  created: IsoDate;
  updated: IsoDate;
  /** The promo code receiver (CreateArticleRebateCode). */
  receiver_customer_id: string | null;
  receiver_firstname: string | null;
  receiver_lastname: string | null;
  receiver_email: string | null;
  receiver_message: string | null;
}

export interface RebateCodeDaysTable {
  rebate_code_id: number;
  /** 1 = Monday .. 7 = Sunday. No rows: valid every day. */
  day_of_week: number;
}

export interface RebateCodeServicesTable {
  rebate_code_id: number;
  service_id: number;
}

export interface RebateCodeCustomersTable {
  rebate_code_id: number;
  customer_id: string;
}

export interface RebateCodeTransactionsTable {
  id: Generated<number>;
  company_id: string;
  rebate_code_id: number;
  /** Value changed: positive for an increase, negative for a decrease. */
  amount: Generated<number>;
  /** Uses changed: positive for an increase, negative for a decrease. */
  usage: Generated<number>;
  booking_id: number | null;
  note: string | null;
  customer_id: string | null;
  service_id: number | null;
  created_date: IsoDate;
  updated_date: IsoDate;
}

export interface PaymentLogsTable {
  id: Generated<number>;
  company_id: string;
  rebate_code_id: number;
  amount: number | null;
  amount_credited: number | null;
  currency_id: string | null;
  comments: string | null;
  created: IsoDate;
  updated: IsoDate;
}

export interface PrintoutsTable {
  id: Generated<number>;
  company_id: string;
  name: string;
  header_left_cell: string | null;
  header_middle_cell: string | null;
  header_right_cell: string | null;
  body_cell: string | null;
  footer_left_cell: string | null;
  footer_middle_cell: string | null;
  footer_right_cell: string | null;
}

export interface MessageTemplatesTable {
  id: Generated<number>;
  company_id: string;
  type_id: number;
  name: string;
  title: string;
  body: string;
  /** E-mail sender; always null for SMS message types. */
  sender: string | null;
  /** `sv` or `en`. */
  language: string | null;
  is_default: Generated<Bool>;
  created: IsoDate;
}

export interface MessageTemplateServicesTable {
  message_template_id: number;
  service_id: number;
}

export interface WebhookEndpointsTable {
  company_id: string;
  id: string;
  url: string;
  description: string | null;
  /** JSON array of event type names. */
  event_types: Generated<string>;
  disabled: Generated<Bool>;
  secret: string;
  created: IsoDate;
  updated: IsoDate;
}

export interface McpUsageTable {
  id: Generated<number>;
  company_id: string;
  tokens_used: number;
  at: IsoDate;
}

/** A company's MCP tokens per UTC day, kept by triggers on mcp_usage (migration 0003). */
export interface McpUsageDailyTable {
  company_id: string;
  /** YYYY-MM-DD */
  day: string;
  tokens_used: number;
}

export interface Database {
  companies: CompaniesTable;
  categories: CategoriesTable;
  company_categories: CompanyCategoriesTable;
  billing_methods: BillingMethodsTable;
  billing_method_countries: BillingMethodCountriesTable;
  message_types: MessageTypesTable;
  services: ServicesTable;
  customers: CustomersTable;
  customer_tags: CustomerTagsTable;
  tags: TagsTable;
  resources: ResourcesTable;
  time_exceptions: TimeExceptionsTable;
  time_exception_resources: TimeExceptionResourcesTable;
  bookings: BookingsTable;
  booking_resources: BookingResourcesTable;
  resource_types: ResourceTypesTable;
  resource_type_resources: ResourceTypeResourcesTable;
  custom_fields: CustomFieldsTable;
  custom_field_values: CustomFieldValuesTable;
  custom_field_services: CustomFieldServicesTable;
  articles: ArticlesTable;
  article_services: ArticleServicesTable;
  rebate_codes: RebateCodesTable;
  rebate_code_days: RebateCodeDaysTable;
  rebate_code_services: RebateCodeServicesTable;
  rebate_code_customers: RebateCodeCustomersTable;
  rebate_code_transactions: RebateCodeTransactionsTable;
  payment_logs: PaymentLogsTable;
  printouts: PrintoutsTable;
  message_templates: MessageTemplatesTable;
  message_template_services: MessageTemplateServicesTable;
  webhook_endpoints: WebhookEndpointsTable;
  mcp_usage: McpUsageTable;
  mcp_usage_daily: McpUsageDailyTable;
}

export type TableName = keyof Database;

/** Every table, parents before children (the order imports insert in). */
export const TABLE_NAMES: readonly TableName[] = [
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
  'mcp_usage',
  'mcp_usage_daily',
];

/** Row shapes for repositories: what a select returns, what an insert or update takes. */
export type Row<T extends TableName> = Selectable<Database[T]>;
export type NewRow<T extends TableName> = Insertable<Database[T]>;
export type RowUpdate<T extends TableName> = Updateable<Database[T]>;
