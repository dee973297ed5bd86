import type { AnyCollection } from '../collection.js';
import { articles, customFields } from './fields-articles.js';
import { mcpUsage, messageTemplates, printouts, webhookEndpoints } from './messaging.js';
import { customers, services, tags } from './people.js';
import { rebateCodes } from './rebate-codes.js';
import { billingMethods, categories, companies, messageTypes } from './reference.js';
import { bookings, resources, resourceTypes, timeExceptions } from './scheduling.js';

/**
 * The top-level keys of an import file, in the order they are written: every collection
 * comes after the ones its items refer to, so foreign keys hold at each insert.
 */
export const COLLECTIONS = {
  Categories: categories,
  BillingMethods: billingMethods,
  MessageTypes: messageTypes,
  Companies: companies,
  Services: services,
  Tags: tags,
  Customers: customers,
  Resources: resources,
  TimeExceptions: timeExceptions,
  Bookings: bookings,
  ResourceTypes: resourceTypes,
  CustomFields: customFields,
  Articles: articles,
  RebateCodes: rebateCodes,
  Printouts: printouts,
  MessageTemplates: messageTemplates,
  WebhookEndpoints: webhookEndpoints,
  McpUsage: mcpUsage,
} satisfies Record<string, AnyCollection>;

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];
