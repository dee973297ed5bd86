import { DEMO_IDS } from '../src/store/demo-data.js';
import { EXAMPLES, type Example, type ExampleOperation } from '../test/examples.js';
import { exampleRequest } from '../test/operation-calls.js';

// The request mix of `npm run soak`: each of the thirteen operations with a valid request
// (answered 2xx while its data lasts) and an invalid one (answered 4xx), both examples of
// test/examples.ts, varied per request. Writes that consume data use pools the soak adds to
// the demo data, or are repeatable (a soft delete, a forced deactivation, increases balanced
// by decreases), so the mix stays valid for hours.

export interface SoakRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface SoakOperation {
  name: string;
  valid(n: number): SoakRequest;
  invalid(n: number): SoakRequest;
}

/** Deletable resources and custom fields added to the demo data, ids 10000…; enough for a long run's deletes. */
export const POOL_SIZE = 3000;

export function soakOperations(tokens: { write: string; read: string; otherCompany: string }): SoakOperation[] {
  let resourcePool = 0;
  let fieldPool = 0;
  // The example's caller; a read answers company A's read role here, a write the write role.
  const headersOf = (method: string, example: Example): Record<string, string> => {
    if (example.as === null) return {};
    if (example.company !== undefined) return { authorization: tokens.otherCompany };
    return { authorization: method === 'GET' ? tokens.read : tokens.write };
  };
  /** The request of an example, with `changes` on top of it; `suffix` after its path (`.csv`). */
  const req = (operationId: ExampleOperation, example: Example, changes: Pick<Example, 'path' | 'query' | 'body'> = {}, suffix = ''): SoakRequest => {
    const varied: Example = {
      ...example,
      ...(changes.path ? { path: { ...example.path, ...changes.path } } : {}),
      ...(changes.query ? { query: { ...example.query, ...changes.query } } : {}),
      ...(changes.body ? { body: { ...example.body, ...changes.body } } : {}),
    };
    const { method, url } = exampleRequest(operationId, varied, suffix);
    return { method: method as SoakRequest['method'], path: url, headers: headersOf(method, varied), body: varied.body };
  };
  const E = EXAMPLES;

  return [
    {
      name: 'DeleteResource',
      // A pooled resource is deleted; when the pool is empty, the resource with bookings is deactivated (Force).
      valid: () =>
        resourcePool < POOL_SIZE
          ? req('DeleteResource', E.DeleteResource.deleted, { path: { Id: 10000 + resourcePool++ } })
          : req('DeleteResource', E.DeleteResource.deactivated),
      invalid: (n) => req('DeleteResource', n % 2 ? E.DeleteResource.blocked : E.DeleteResource['of company B']),
    },
    {
      name: 'CreateArticleRebateCode',
      // A gift card or a punch ticket, by one of 50 buyers.
      valid: (n) =>
        req('CreateArticleRebateCode', E.CreateArticleRebateCode['new buyer'], {
          body: {
            ArticleId: n % 2 ? DEMO_IDS.articles.giftCard : DEMO_IDS.articles.punchTicket,
            Customer: { ...E.CreateArticleRebateCode['new buyer'].body.Customer, Lastname: `Buyer ${n % 50}`, Email: `soak.buyer${n % 50}@example.org` },
          },
        }),
      invalid: () => req('CreateArticleRebateCode', E.CreateArticleRebateCode['not convertible']),
    },
    {
      name: 'GetRebateCodeBySign',
      // Signs sent lower-case: lookups ignore case.
      valid: (n) =>
        n % 2
          ? req('GetRebateCodeBySign', E.GetRebateCodeBySign['for one service'])
          : req('GetRebateCodeBySign', E.GetRebateCodeBySign.default, { query: { RebateCodeSign: E.GetRebateCodeBySign.default.query.RebateCodeSign.toLowerCase() } }),
      invalid: (n) =>
        n % 2
          ? req('GetRebateCodeBySign', E.GetRebateCodeBySign.inactive)
          : req('GetRebateCodeBySign', E.GetRebateCodeBySign['unknown sign'], { query: { RebateCodeSign: `NOPE${n}` } }),
    },
    {
      name: 'CreateRebateCodeTransaction',
      // Increases and decreases of 1 alternate on the value card, so its balance stays put.
      valid: (n) =>
        req('CreateRebateCodeTransaction', n % 2 ? E.CreateRebateCodeTransaction.default : E.CreateRebateCodeTransaction.increase, { body: { RebateCodeId: 103, Amount: 1 } }),
      invalid: () => req('CreateRebateCodeTransaction', E.CreateRebateCodeTransaction['beyond the balance']),
    },
    {
      name: 'DeleteCustomField',
      valid: () => req('DeleteCustomField', E.DeleteCustomField.default, { path: { Id: fieldPool < POOL_SIZE ? 10000 + fieldPool++ : 99999 } }),
      invalid: () => req('DeleteCustomField', E.DeleteCustomField['of company B']),
    },
    {
      name: 'BookingPrintoutQuery',
      valid: (n) => req('BookingPrintoutQuery', E.BookingPrintoutQuery.default, { query: { Skip: n % 30, ...(n % 5 === 0 ? { format: 'csv' } : {}) } }),
      invalid: () => req('BookingPrintoutQuery', E.BookingPrintoutQuery['unknown order']),
    },
    {
      name: 'CreateMessageTemplate',
      valid: (n) => req('CreateMessageTemplate', E.CreateMessageTemplate.default, { body: { Name: `Soak ${n}`, Language: n % 2 ? 'sv' : 'en' } }),
      invalid: () => req('CreateMessageTemplate', E.CreateMessageTemplate['SMS too long']),
    },
    {
      name: 'DeleteTag',
      valid: (n) => req('DeleteTag', E.DeleteTag.default, { path: { Id: [DEMO_IDS.tags.vip, DEMO_IDS.tags.regular, DEMO_IDS.tags.newsletter][n % 3] } }),
      invalid: () => req('DeleteTag', E.DeleteTag['of company B']),
    },
    {
      name: 'CreateResourceType',
      valid: (n) => req('CreateResourceType', E.CreateResourceType.default, { body: { Name: `Soak type ${n}` } }),
      invalid: () => req('CreateResourceType', E.CreateResourceType['unknown and repeated resources']),
    },
    {
      name: 'BillingMethodQuery',
      valid: (n) => req('BillingMethodQuery', E.BillingMethodQuery['by name, descending'], { query: { CountryId: ['SE', 'NO', 'DK', 'FI'][n % 4] } }),
      invalid: () => req('BillingMethodQuery', E.BillingMethodQuery['negative Take']),
    },
    {
      name: 'CategoryQuery',
      valid: (n) => req('CategoryQuery', E.CategoryQuery.default, {}, n % 4 === 0 ? '.csv' : ''),
      invalid: () => req('CategoryQuery', E.CategoryQuery['as XML']),
    },
    {
      name: 'GetMcpUsage',
      valid: () => req('GetMcpUsage', E.GetMcpUsage.default),
      invalid: () => req('GetMcpUsage', E.GetMcpUsage["another company's"]),
    },
    {
      name: 'UpdateWebhookEndpoint',
      // A public address literal: host names are not resolved when saving.
      valid: (n) =>
        req('UpdateWebhookEndpoint', E.UpdateWebhookEndpoint.default, {
          body: { Url: `https://93.184.215.${(n % 200) + 1}/hooks`, Description: `Soak ${n}`, Disabled: n % 2 === 0 },
        }),
      invalid: () => req('UpdateWebhookEndpoint', E.UpdateWebhookEndpoint['private address']),
    },
  ];
}
