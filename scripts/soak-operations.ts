import { DEMO_COMPANY_A, DEMO_IDS } from '../src/store/demo-data.js';

// The request mix of `npm run soak`: each of the thirteen operations with a valid request
// (answered 2xx while its data lasts) and an invalid one (answered 4xx). Writes that
// consume data use pools the soak adds to the demo data, or are repeatable (a soft delete,
// a forced deactivation, increases balanced by decreases), so the mix stays valid for hours.

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
  const A = DEMO_COMPANY_A;
  const write = { authorization: tokens.write };
  const read = { authorization: tokens.read };
  let resourcePool = 0;
  let fieldPool = 0;
  const req = (method: SoakRequest['method'], path: string, headers: Record<string, string>, body?: unknown): SoakRequest => ({ method, path, headers, body });
  const lookup = (sign: string, serviceId: number) =>
    `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=${sign}&ServiceId=${serviceId}&IncludeConnectedServices=true&IncludeConnectedDaysOfWeek=true`;

  return [
    {
      name: 'DeleteResource',
      // A pooled resource is deleted; when the pool is empty, the resource with bookings is deactivated (Force).
      valid: () =>
        resourcePool < POOL_SIZE
          ? req('DELETE', `/resource/${10000 + resourcePool++}`, write)
          : req('DELETE', `/resource/${DEMO_IDS.resourceWithBlockingBookings}?Force=true`, write),
      invalid: (n) => (n % 2 ? req('DELETE', `/resource/${DEMO_IDS.resourceWithBlockingBookings}`, write) : req('DELETE', `/resource/${DEMO_IDS.resourceOfCompanyB}`, write)),
    },
    {
      name: 'CreateArticleRebateCode',
      valid: (n) =>
        req('POST', '/rebatecodes/fromarticle', write, {
          ArticleId: n % 2 ? DEMO_IDS.articles.giftCard : DEMO_IDS.articles.punchTicket,
          Customer: { Firstname: 'Soak', Lastname: `Buyer ${n % 50}`, Email: `soak.buyer${n % 50}@example.org` },
          Receiver: { Firstname: 'Friend', Email: 'friend@example.org', ReceiverMessage: 'Enjoy!' },
        }),
      invalid: () => req('POST', '/rebatecodes/fromarticle', write, { ArticleId: DEMO_IDS.articles.product, Customer: { Email: 'x@example.org' } }),
    },
    {
      name: 'GetRebateCodeBySign',
      valid: (n) => req('GET', n % 2 ? lookup('MASSAGE100', 102) : lookup('value1000', 101), read),
      invalid: (n) => req('GET', n % 2 ? lookup('PAUSED10', 101) : lookup(`NOPE${n}`, 101), read),
    },
    {
      name: 'CreateRebateCodeTransaction',
      // Increases and decreases of 1 alternate on the value card, so its balance stays put.
      valid: (n) => req('POST', '/rebatecodes/transactions', write, { RebateCodeId: 103, Amount: 1, Usage: 0, ChangeType: n % 2 ? 'Decrease' : 'Increase' }),
      invalid: () => req('POST', '/rebatecodes/transactions', write, { RebateCodeId: 103, Amount: 100000000, Usage: 0, ChangeType: 'Decrease' }),
    },
    {
      name: 'DeleteCustomField',
      valid: () => req('DELETE', `/customfields/${fieldPool < POOL_SIZE ? 10000 + fieldPool++ : 99999}`, write),
      invalid: () => req('DELETE', `/customfields/${DEMO_IDS.customFields.companyB}`, write),
    },
    {
      name: 'BookingPrintoutQuery',
      valid: (n) => req('GET', `/reports/booking/printout?Skip=${n % 30}&Take=10&OrderBy=Name${n % 5 === 0 ? '&format=csv' : ''}`, read),
      invalid: () => req('GET', '/reports/booking/printout?OrderBy=Nope', read),
    },
    {
      name: 'CreateMessageTemplate',
      valid: (n) =>
        req('POST', '/messages/templates', write, {
          TypeId: DEMO_IDS.messageTypes.confirmationEmail, Name: `Soak ${n}`, Title: 'Thanks', Body: 'Hi {Firstname}, see you {From}.',
          Sender: 'soak@studionova.example', Language: n % 2 ? 'sv' : 'en', Services: [101, 102],
        }),
      invalid: () => req('POST', '/messages/templates', write, { TypeId: DEMO_IDS.messageTypes.confirmationSms, Name: 'SMS', Title: 'x', Body: 'y'.repeat(200), Sender: 'a@b.se' }),
    },
    {
      name: 'DeleteTag',
      valid: (n) => req('DELETE', `/tags/${[101, 102, 103][n % 3]}`, write),
      invalid: () => req('DELETE', `/tags/${DEMO_IDS.tags.memberB}`, write),
    },
    {
      name: 'CreateResourceType',
      valid: (n) => req('POST', '/resourcetypes', write, { Name: `Soak type ${n}`, Active: true, Resources: [{ Id: 101, Priority: 1 }, { Id: 103 }] }),
      invalid: () => req('POST', '/resourcetypes', write, { Name: 'Bad', Resources: [{ Id: DEMO_IDS.resourceOfCompanyB }, { Id: 101 }, { Id: 101 }] }),
    },
    {
      name: 'BillingMethodQuery',
      valid: (n) => req('GET', `/billing/methods?CountryId=${['SE', 'NO', 'DK', 'FI'][n % 4]}&OrderByDesc=Name`, read),
      invalid: () => req('GET', '/billing/methods?Take=-1', read),
    },
    {
      name: 'CategoryQuery',
      valid: (n) => req('GET', `/categories${n % 4 === 0 ? '.csv' : ''}?Take=5&Fields=Id,Name`, {}),
      invalid: () => req('GET', '/categories?format=xml', {}),
    },
    {
      name: 'GetMcpUsage',
      valid: () => req('GET', '/assistant/mcp/usage', read),
      invalid: () => req('GET', `/assistant/mcp/usage?CompanyId=${A}`, { authorization: tokens.otherCompany }),
    },
    {
      name: 'UpdateWebhookEndpoint',
      valid: (n) =>
        req('PUT', `/webhook/endpoints/${DEMO_IDS.webhooks.bookingsA}?CompanyId=${A}`, write, {
          Url: `https://93.184.215.${(n % 200) + 1}/hooks`, EventTypes: ['booking.created', 'booking.canceled'], Description: `Soak ${n}`, Disabled: n % 2 === 0,
        }),
      invalid: () => req('PUT', `/webhook/endpoints/${DEMO_IDS.webhooks.bookingsA}?CompanyId=${A}`, write, { Url: 'http://169.254.169.254/latest', EventTypes: ['x'] }),
    },
  ];
}
