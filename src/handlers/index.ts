import type { Handlers } from './types.js';
import { assistantHandlers } from './assistant.js';
import { billingHandlers } from './billing.js';
import { categoryHandlers } from './categories.js';
import { customFieldHandlers } from './custom-fields.js';
import { mcpGrantHandlers } from './mcp-grants.js';
import { messageHandlers } from './messages.js';
import { rebateCodeTransactionHandlers } from './rebate-code-transactions.js';
import { rebateCodeHandlers } from './rebate-codes.js';
import { reportHandlers } from './reports.js';
import { resourceTypeHandlers } from './resource-types.js';
import { resourceHandlers } from './resources.js';
import { tagHandlers } from './tags.js';
import { webhookHandlers } from './webhooks.js';

/** Every operation of the contract, keyed by operationId; one module per area. */
export const handlers: Handlers = {
  ...categoryHandlers,
  ...tagHandlers,
  ...resourceHandlers,
  ...resourceTypeHandlers,
  ...rebateCodeHandlers,
  ...rebateCodeTransactionHandlers,
  ...customFieldHandlers,
  ...messageHandlers,
  ...webhookHandlers,
  ...reportHandlers,
  ...billingHandlers,
  ...assistantHandlers,
  ...mcpGrantHandlers,
};
