import { sql, type Kysely, type Migration } from 'kysely';
import { companyId, count, flag, generatedId, optionalFlag, parent } from './helpers.js';

/**
 * The initial schema (see ../schema.ts for the meaning of each column).
 * Written only with the schema builder and portable SQL so that a PostgreSQL dialect can
 * run it unchanged; `generatedId` is the one dialect-aware piece.
 * Indexes follow the lookups the operations make: (company_id, id) for every
 * company-owned table, plus the specific ones named where they are created.
 */

const text = 'text';
const int = 'integer';
const real = 'double precision'; // REAL affinity in SQLite; float8 (not float4) in PostgreSQL

async function referenceData(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('companies')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('site_path', text)
    .addColumn('payment_provider_id', int)
    .addColumn('mcp_token_limit', int, (c) => c.check(sql`mcp_token_limit >= 0`))
    .addColumn('created', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', int, generatedId(db))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('normalized_name', text, (c) => c.notNull())
    .addColumn('active', int, flag('active', 1))
    .execute();

  await db.schema
    .createTable('company_categories')
    .addColumn('company_id', text, companyId)
    .addColumn('category_id', int, parent('categories.id'))
    .addPrimaryKeyConstraint('company_categories_pk', ['company_id', 'category_id'])
    .execute();
  await db.schema.createIndex('company_categories_category_idx').on('company_categories').column('category_id').execute();

  await db.schema
    .createTable('billing_methods')
    .addColumn('id', int, generatedId(db))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .execute();

  await db.schema
    .createTable('billing_method_countries')
    .addColumn('billing_method_id', int, parent('billing_methods.id'))
    .addColumn('country_id', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_method_countries_pk', ['billing_method_id', 'country_id'])
    .execute();
  // BillingMethodQuery?CountryId=SE
  await db.schema.createIndex('billing_method_countries_country_idx').on('billing_method_countries').column('country_id').execute();

  await db.schema
    .createTable('message_types')
    .addColumn('id', int, generatedId(db))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('max_characters', int, (c) => c.notNull().check(sql`max_characters > 0`))
    .addColumn('default_text', text)
    .addColumn('send_method_id', int, (c) => c.notNull().check(sql`send_method_id in (1, 2)`))
    .execute();
}

async function servicesAndCustomers(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('services')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('image_url', text)
    .addColumn('active', int, flag('active', 1))
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('scope', int)
    .addColumn('color', text)
    .addColumn('sort_order', int, (c) => c.notNull().defaultTo(0))
    .addColumn('active', int, flag('active', 1))
    .addColumn('created_date', text, (c) => c.notNull())
    .execute();

  let customers = db.schema
    .createTable('customers')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('company_id', text, companyId);
  for (const name of [
    'firstname', 'lastname', 'email', 'phone', 'social_user_name', 'image_url',
    'personal_identity_number', 'corporate_identity_number', 'invoice_address1',
    'invoice_address2', 'invoice_city', 'invoice_postal_code', 'invoice_country_code',
  ]) {
    customers = customers.addColumn(name, text);
  }
  await customers
    .addColumn('subscribed_to_newsletter', int, flag('subscribed_to_newsletter', 0))
    .addColumn('comments', text)
    .addColumn('created', text, (c) => c.notNull())
    .execute();
  // CreateArticleRebateCode finds an existing profile by e-mail, case-insensitively.
  await db.schema
    .createIndex('customers_company_email_idx')
    .on('customers')
    .column('company_id')
    .expression(sql`lower(email)`)
    .execute();

  await db.schema
    .createTable('customer_tags')
    .addColumn('customer_id', text, parent('customers.id'))
    .addColumn('tag_id', int, parent('tags.id'))
    .addPrimaryKeyConstraint('customer_tags_pk', ['customer_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('customer_tags_tag_idx').on('customer_tags').column('tag_id').execute();
}

async function resourcesAndBookings(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resources')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('active', int, flag('active', 1))
    .addColumn('color', text)
    .addColumn('email', text)
    .addColumn('image_url', text)
    .addColumn('mobile_phone', text)
    .addColumn('access_group', text)
    .addColumn('email_notification', int, flag('email_notification', 0))
    .addColumn('sms_notification', int, flag('sms_notification', 0))
    .addColumn('send_email_reminder', int, optionalFlag('send_email_reminder'))
    .addColumn('send_sms_reminder', int, optionalFlag('send_sms_reminder'))
    .addColumn('resource_category', int, (c) => c.check(sql`resource_category between 1 and 4`))
    .addColumn('relay_starts_before_minutes', int)
    .addColumn('created', text, (c) => c.notNull())
    .addColumn('updated', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('time_exceptions')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('is_recurring', int, flag('is_recurring', 0))
    .addColumn('is_block', int, flag('is_block', 1))
    .addColumn('reason_text', text)
    .addColumn('reason_text_public', text)
    .addColumn('from', text, (c) => c.notNull())
    .addColumn('to', text, (c) => c.notNull())
    .addCheckConstraint('time_exceptions_period_check', sql`${sql.ref('to')} >= ${sql.ref('from')}`)
    .execute();

  await db.schema
    .createTable('time_exception_resources')
    .addColumn('time_exception_id', int, parent('time_exceptions.id'))
    .addColumn('resource_id', int, parent('resources.id'))
    .addPrimaryKeyConstraint('time_exception_resources_pk', ['time_exception_id', 'resource_id'])
    .execute();
  await db.schema.createIndex('time_exception_resources_resource_idx').on('time_exception_resources').column('resource_id').execute();

  await db.schema
    .createTable('bookings')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('service_id', int, (c) => c.notNull().references('services.id'))
    .addColumn('from', text, (c) => c.notNull())
    .addColumn('to', text, (c) => c.notNull())
    .addColumn('booked_spots', int, count('booked_spots', 1))
    .addColumn('total_spots', int, count('total_spots', 1))
    .addColumn('pause_after_in_minutes', int, count('pause_after_in_minutes', 0))
    .addColumn('status_id', int, (c) => c.notNull().check(sql`status_id between 1 and 10`))
    .addColumn('customer_id', text, (c) => c.references('customers.id'))
    .addCheckConstraint('bookings_period_check', sql`${sql.ref('to')} >= ${sql.ref('from')}`)
    .execute();
  await db.schema.createIndex('bookings_customer_idx').on('bookings').column('customer_id').execute();
  await db.schema.createIndex('bookings_service_idx').on('bookings').column('service_id').execute();

  await db.schema
    .createTable('booking_resources')
    .addColumn('booking_id', int, parent('bookings.id'))
    .addColumn('resource_id', int, parent('resources.id'))
    .addPrimaryKeyConstraint('booking_resources_pk', ['booking_id', 'resource_id'])
    .execute();
  // DeleteResource: "does this resource have blocking bookings?"
  await db.schema.createIndex('booking_resources_resource_idx').on('booking_resources').columns(['resource_id', 'booking_id']).execute();

  await db.schema
    .createTable('resource_types')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('active', int, flag('active', 1))
    .addColumn('created', text, (c) => c.notNull())
    .addColumn('updated', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('resource_type_resources')
    .addColumn('resource_type_id', int, parent('resource_types.id'))
    .addColumn('resource_id', int, parent('resources.id'))
    .addColumn('priority', int)
    .addPrimaryKeyConstraint('resource_type_resources_pk', ['resource_type_id', 'resource_id'])
    .execute();
  await db.schema.createIndex('resource_type_resources_resource_idx').on('resource_type_resources').column('resource_id').execute();
}

async function customFieldsAndArticles(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('custom_fields')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('group_id', int)
    .addColumn('field_id', int, (c) => c.notNull())
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('width', int)
    .addColumn('column_name', text)
    .addColumn('description', text)
    .addColumn('data_type', text, (c) => c.notNull().defaultTo('TextBox'))
    .addColumn('default_value', text)
    .addColumn('is_mandatory', int, flag('is_mandatory', 0))
    .addColumn('mandatory_error_message', text)
    .addColumn('max_length', int)
    .addColumn('multiple_line_text', int, flag('multiple_line_text', 0))
    .addColumn('reg_ex', text)
    .addColumn('reg_ex_id', int)
    .addColumn('reg_ex_error_message', text)
    .addColumn('is_public', int, flag('is_public', 0))
    .addColumn('is_hidden', int, flag('is_hidden', 0))
    .addColumn('sort_order', int, (c) => c.notNull().defaultTo(0))
    .addColumn('table_name', text)
    .execute();

  await db.schema
    .createTable('custom_field_values')
    .addColumn('id', int, generatedId(db))
    .addColumn('custom_field_id', int, parent('custom_fields.id'))
    .addColumn('active', int, flag('active', 1))
    .addColumn('sort_order', int, (c) => c.notNull().defaultTo(0))
    .addColumn('value', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_field_values_field_idx').on('custom_field_values').columns(['custom_field_id', 'sort_order']).execute();

  await db.schema
    .createTable('custom_field_services')
    .addColumn('custom_field_id', int, parent('custom_fields.id'))
    .addColumn('service_id', int, parent('services.id'))
    .addPrimaryKeyConstraint('custom_field_services_pk', ['custom_field_id', 'service_id'])
    .execute();
  await db.schema.createIndex('custom_field_services_service_idx').on('custom_field_services').column('service_id').execute();

  await db.schema
    .createTable('articles')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('article_type_id', int, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('image_url', text)
    .addColumn('active', int, flag('active', 1))
    .addColumn('amount', int)
    .addColumn('price', real)
    .addColumn('currency_id', text)
    .addColumn('sort_order', int, (c) => c.notNull().defaultTo(0))
    .addColumn('updated_date', text, (c) => c.notNull())
    .addColumn('created_date', text, (c) => c.notNull())
    .addColumn('duration', int)
    .addColumn('price_sign', text)
    .addColumn('vat', real)
    .addColumn('valid_days', int)
    .addColumn('max_quantity', int)
    .addColumn('send_notification', int, flag('send_notification', 0))
    .addColumn('notification_email', text)
    .execute();

  await db.schema
    .createTable('article_services')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('article_id', int, parent('articles.id'))
    .addColumn('service_id', int, parent('services.id'))
    .addUniqueConstraint('article_services_article_service_unique', ['article_id', 'service_id'])
    .execute();
  await db.schema.createIndex('article_services_service_idx').on('article_services').column('service_id').execute();
}

async function rebateCodes(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rebate_codes')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('sign', text, (c) => c.notNull())
    .addColumn('sign_key', text, (c) => c.notNull())
    .addColumn('type_id', int, (c) => c.notNull().check(sql`type_id between 1 and 5`))
    .addColumn('value', int, (c) => c.notNull())
    .addColumn('status_id', int, (c) => c.notNull().defaultTo(1).check(sql`status_id between 1 and 3`))
    .addColumn('name', text)
    .addColumn('valid_from', text, (c) => c.notNull())
    .addColumn('valid_to', text, (c) => c.notNull())
    .addColumn('from_time', text)
    .addColumn('to_time', text)
    .addColumn('max_number_of_uses', int, count('max_number_of_uses', 0))
    .addColumn('max_number_of_uses_per_customer', int, count('max_number_of_uses_per_customer', 0))
    .addColumn('number_of_uses_used', int, count('number_of_uses_used', 0))
    .addColumn('remaining_amount', real, (c) => c.check(sql`remaining_amount >= 0`))
    .addColumn('remaining_usage', int, (c) => c.check(sql`remaining_usage >= 0`))
    .addColumn('personal_note', text)
    .addColumn('article_id', int, (c) => c.references('articles.id'))
    .addColumn('payment_received', int, flag('payment_received', 0))
    .addColumn('currency_sign', text)
    .addColumn('price_sign', text)
    .addColumn('created_by', text)
    .addColumn('updated_by', text)
    .addColumn('created', text, (c) => c.notNull())
    .addColumn('updated', text, (c) => c.notNull())
    .addColumn('receiver_customer_id', text, (c) => c.references('customers.id'))
    .addColumn('receiver_firstname', text)
    .addColumn('receiver_lastname', text)
    .addColumn('receiver_email', text)
    .addColumn('receiver_message', text)
    .addCheckConstraint('rebate_codes_period_check', sql`valid_to >= valid_from`)
    .execute();
  // Signs are unique per company regardless of case; GetRebateCodeBySign looks up by it.
  await db.schema.createIndex('rebate_codes_company_sign_key_unique').unique().on('rebate_codes').columns(['company_id', 'sign_key']).execute();
  await db.schema.createIndex('rebate_codes_article_idx').on('rebate_codes').column('article_id').execute();

  await db.schema
    .createTable('rebate_code_days')
    .addColumn('rebate_code_id', int, parent('rebate_codes.id'))
    .addColumn('day_of_week', int, (c) => c.notNull().check(sql`day_of_week between 1 and 7`))
    .addPrimaryKeyConstraint('rebate_code_days_pk', ['rebate_code_id', 'day_of_week'])
    .execute();

  await db.schema
    .createTable('rebate_code_services')
    .addColumn('rebate_code_id', int, parent('rebate_codes.id'))
    .addColumn('service_id', int, parent('services.id'))
    .addPrimaryKeyConstraint('rebate_code_services_pk', ['rebate_code_id', 'service_id'])
    .execute();
  await db.schema.createIndex('rebate_code_services_service_idx').on('rebate_code_services').column('service_id').execute();

  await db.schema
    .createTable('rebate_code_customers')
    .addColumn('rebate_code_id', int, parent('rebate_codes.id'))
    .addColumn('customer_id', text, parent('customers.id'))
    .addPrimaryKeyConstraint('rebate_code_customers_pk', ['rebate_code_id', 'customer_id'])
    .execute();
  await db.schema.createIndex('rebate_code_customers_customer_idx').on('rebate_code_customers').column('customer_id').execute();

  await db.schema
    .createTable('rebate_code_transactions')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('rebate_code_id', int, parent('rebate_codes.id'))
    .addColumn('amount', real, (c) => c.notNull().defaultTo(0))
    .addColumn('usage', int, (c) => c.notNull().defaultTo(0))
    .addColumn('booking_id', int, (c) => c.references('bookings.id'))
    .addColumn('note', text)
    .addColumn('customer_id', text, (c) => c.references('customers.id'))
    .addColumn('service_id', int, (c) => c.references('services.id'))
    .addColumn('created_date', text, (c) => c.notNull())
    .addColumn('updated_date', text, (c) => c.notNull())
    .execute();
  // The rebate code object lists its transactions in order.
  await db.schema.createIndex('rebate_code_transactions_code_idx').on('rebate_code_transactions').columns(['rebate_code_id', 'created_date']).execute();

  await db.schema
    .createTable('payment_logs')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('rebate_code_id', int, parent('rebate_codes.id'))
    .addColumn('amount', real)
    .addColumn('amount_credited', real)
    .addColumn('currency_id', text)
    .addColumn('comments', text)
    .addColumn('created', text, (c) => c.notNull())
    .addColumn('updated', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_logs_code_idx').on('payment_logs').column('rebate_code_id').execute();
}

async function messagesReportsWebhooksUsage(db: Kysely<any>): Promise<void> {
  let printouts = db.schema
    .createTable('printouts')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('name', text, (c) => c.notNull());
  for (const cell of [
    'header_left_cell', 'header_middle_cell', 'header_right_cell', 'body_cell',
    'footer_left_cell', 'footer_middle_cell', 'footer_right_cell',
  ]) {
    printouts = printouts.addColumn(cell, text);
  }
  await printouts.execute();

  await db.schema
    .createTable('message_templates')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('type_id', int, (c) => c.notNull().references('message_types.id'))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('body', text, (c) => c.notNull())
    .addColumn('sender', text)
    .addColumn('language', text, (c) => c.check(sql`language in ('sv', 'en')`))
    .addColumn('is_default', int, flag('is_default', 0))
    .addColumn('created', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('message_templates_type_idx').on('message_templates').column('type_id').execute();

  await db.schema
    .createTable('message_template_services')
    .addColumn('message_template_id', int, parent('message_templates.id'))
    .addColumn('service_id', int, parent('services.id'))
    .addPrimaryKeyConstraint('message_template_services_pk', ['message_template_id', 'service_id'])
    .execute();
  await db.schema.createIndex('message_template_services_service_idx').on('message_template_services').column('service_id').execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('company_id', text, companyId)
    .addColumn('id', text, (c) => c.notNull())
    .addColumn('url', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('event_types', text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('disabled', int, flag('disabled', 0))
    .addColumn('secret', text, (c) => c.notNull())
    .addColumn('created', text, (c) => c.notNull())
    .addColumn('updated', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoints_pk', ['company_id', 'id'])
    .execute();

  await db.schema
    .createTable('mcp_usage')
    .addColumn('id', int, generatedId(db))
    .addColumn('company_id', text, companyId)
    .addColumn('tokens_used', 'bigint', (c) => c.notNull().check(sql`tokens_used >= 0`))
    .addColumn('at', text, (c) => c.notNull())
    .execute();
  // GetMcpUsage sums a rolling window; with tokens_used in the index the SUM is answered
  // from the index alone (a range scan), however many rows the table holds.
  await db.schema.createIndex('mcp_usage_company_at_idx').on('mcp_usage').columns(['company_id', 'at', 'tokens_used']).execute();
}

/** Company-owned tables with an integer id: each gets a (company_id, id) index. */
const COMPANY_TABLES = [
  'services', 'tags', 'customers', 'resources', 'time_exceptions', 'bookings',
  'resource_types', 'custom_fields', 'articles', 'article_services', 'rebate_codes',
  'rebate_code_transactions', 'payment_logs', 'printouts', 'message_templates',
];

/** Drop order: children before parents. */
const ALL_TABLES = [
  'mcp_usage', 'webhook_endpoints', 'message_template_services', 'message_templates',
  'printouts', 'payment_logs', 'rebate_code_transactions', 'rebate_code_customers',
  'rebate_code_services', 'rebate_code_days', 'rebate_codes', 'article_services', 'articles',
  'custom_field_services', 'custom_field_values', 'custom_fields', 'resource_type_resources',
  'resource_types', 'booking_resources', 'bookings', 'time_exception_resources',
  'time_exceptions', 'resources', 'customer_tags', 'customers', 'tags', 'services',
  'message_types', 'billing_method_countries', 'billing_methods', 'company_categories',
  'categories', 'companies',
];

export const initial: Migration = {
  async up(db) {
    await referenceData(db);
    await servicesAndCustomers(db);
    await resourcesAndBookings(db);
    await customFieldsAndArticles(db);
    await rebateCodes(db);
    await messagesReportsWebhooksUsage(db);
    for (const table of COMPANY_TABLES) {
      await db.schema.createIndex(`${table}_company_id_idx`).on(table).columns(['company_id', 'id']).execute();
    }
  },
  async down(db) {
    for (const table of ALL_TABLES) await db.schema.dropTable(table).ifExists().execute();
  },
};
