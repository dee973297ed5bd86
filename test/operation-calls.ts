import { DEMO_COMPANY_A } from '../src/store/demo-data.js';
import type { CallOptions, Method } from './requests.js';

// One call of each operation's success path, on the demo data (company A's write role unless
// an entry says otherwise), in an order where each succeeds once: round-trips.test.ts counts
// their statements, compiles.test.ts their compiles.

const A = DEMO_COMPANY_A;

export const SUCCESSFUL_CALLS: Array<[name: string, method: Method, url: string, options?: CallOptions]> = [
  ['CategoryQuery', 'GET', '/categories?Take=5'],
  ['BillingMethodQuery', 'GET', '/billing/methods?CountryId=SE'],
  ['BookingPrintoutQuery', 'GET', '/reports/booking/printout?Skip=1&Take=5&OrderBy=Name'],
  ['BookingPrintoutQuery, CSV', 'GET', '/reports/booking/printout.csv?Take=5'],
  ['GetMcpUsage', 'GET', '/assistant/mcp/usage'],
  ['BookingPrintoutQuery, past the end', 'GET', '/reports/booking/printout?Skip=50'],
  ['GetRebateCodeBySign', 'GET', `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=VALUE1000&ServiceId=101&IncludeConnectedServices=true&IncludeConnectedDaysOfWeek=true&IncludeConnectedCustomers=true`],
  ['GetRebateCodeBySign, per-customer count', 'GET', `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=VIP25&ServiceId=101&IncludeConnectedServices=false&CustomerEmail=anna.svensson@example.com&IncludeConnectedCustomers=true`],
  ['GetRebateCodeBySign, public view', 'GET', `/rebatecodes/getbysign?CompanyId=${A}&RebateCodeSign=GIFT500&ServiceId=101&IncludeConnectedServices=true&CustomerEmail=anna.svensson@example.com`, { as: [] }],
  ['CreateRebateCodeTransaction', 'POST', '/rebatecodes/transactions', { body: { RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Decrease' } }],
  ['CreateRebateCodeTransaction, with a booking', 'POST', '/rebatecodes/transactions', { body: { RebateCodeId: 101, Amount: 5, Usage: 0, ChangeType: 'Decrease', BookingId: 101 } }],
  ['CreateArticleRebateCode, new buyer', 'POST', '/rebatecodes/fromarticle', { body: { ArticleId: 103, Customer: { Firstname: 'Lisa', Email: 'lisa.round@example.se' } } }],
  ['CreateArticleRebateCode, no buyer', 'POST', '/rebatecodes/fromarticle', { body: { ArticleId: 102 } }],
  ['DeleteResource, deleted', 'DELETE', '/resource/103'],
  ['DeleteResource, deactivated', 'DELETE', '/resource/101?Force=true'],
  ['DeleteCustomField', 'DELETE', '/customfields/102'],
  ['DeleteTag', 'DELETE', '/tags/102'],
  ['CreateMessageTemplate', 'POST', '/messages/templates', { body: { TypeId: 2, Name: 'Reminder', Title: 'Reminder', Body: 'See you', Language: 'en', Services: [101] } }],
  ['CreateMessageTemplate, for all services', 'POST', '/messages/templates', { body: { TypeId: 1, Name: 'Thanks', Title: 'Thanks', Body: 'Thank you' } }],
  ['CreateResourceType', 'POST', '/resourcetypes', { body: { Name: 'Stylists', Resources: [{ Id: 102, Priority: 1 }, { Id: 104 }] } }],
  ['CreateResourceType, no resources', 'POST', '/resourcetypes', { body: { Name: 'Rooms' } }],
  ['UpdateWebhookEndpoint', 'PUT', `/webhook/endpoints/wh_bookings?CompanyId=${A}`, { body: { Url: 'https://hooks.example/x', EventTypes: ['resource.deleted'] } }],
];
