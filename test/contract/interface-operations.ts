// The original's operations, request bodies, roles and declared error statuses, transcribed
// (see interface-responses.ts for why, and notation.ts for the type notation).

import type { Fields, Spec } from './notation.js';

const WRITE_ROLES = ['bookingsupplier-administrator-write', 'superadmin'];
const PRINTOUT_ROLES = ['bookingsupplier-administrator-write', 'bookingsupplier-administrator-read', 'superadmin'];

/** The original's request bodies. CreateArticleRebateCode's fields are strings unless stated. */
export const REQUEST_OBJECTS: Record<string, Fields> = {
  CreateArticleRebateCode: {
    ArticleId: 'int !',
    CompanyId: 'nullable guid',
    Customer: 'CreateArticleRebateCode.Customer',
    InvoiceAddress: 'CreateArticleRebateCode.InvoiceAddress',
    Receiver: 'CreateArticleRebateCode.Receiver',
  },
  'CreateArticleRebateCode.Customer': {
    CustomerId: 'nullable guid',
    Firstname: 'string',
    Lastname: 'string',
    Email: 'string',
    Phone: 'string',
    SubscribedToNewsletter: 'bool',
    PersonalIdentityNumber: 'string',
  },
  'CreateArticleRebateCode.InvoiceAddress': {
    CorporateIdentityNumber: 'string',
    InvoiceAddress1: 'string',
    InvoiceAddress2: 'string',
    InvoiceCity: 'string',
    InvoicePostalCode: 'string',
    InvoiceCountryCode: 'string',
  },
  'CreateArticleRebateCode.Receiver': {
    CustomerId: 'nullable guid',
    Firstname: 'string',
    Lastname: 'string',
    Email: 'string',
    ReceiverMessage: 'string',
  },
  CreateRebateCodeTransaction: {
    // "CompanyId nullable guid, required": see requiredMatches() for how this is read.
    CompanyId: 'nullable guid !',
    RebateCodeId: 'int !',
    Amount: 'double !',
    Usage: 'int !',
    BookingId: 'nullable int',
    ChangeType: 'enum(Increase|Decrease) !',
  },
  CreateMessageTemplate: {
    CompanyId: 'nullable guid',
    TypeId: 'int !',
    Name: 'string !',
    Title: 'string !',
    Body: 'string !',
    Sender: 'string',
    Language: 'enum(sv|en)',
    Services: '[int]',
  },
  CreateResourceType: {
    CompanyId: 'nullable guid',
    // Required though the original marks nothing: a constraint it implies (a resource
    // type is shown by its Name), stated in the contract.
    Name: 'string !',
    Resources: '[CreateResourceType.Resources[]]',
    Description: 'string',
    Active: 'bool',
  },
  'CreateResourceType.Resources[]': {
    // Implied: a resource reference without an Id names no resource.
    Id: 'int !',
    Priority: 'int',
  },
  UpdateWebhookEndpoint: {
    // Id (path) and CompanyId (query) are parameters, see OPERATIONS.
    Url: 'string !',
    EventTypes: '[string] !',
    Description: 'string',
    Disabled: 'bool',
  },
};

type In = 'path' | 'query';
export interface InterfaceOperation {
  method: 'get' | 'put' | 'post' | 'delete';
  path: string;
  params: Record<string, [In, Spec]>;
  body?: string; // a REQUEST_OBJECTS name
  response: string; // a RESPONSE_OBJECTS name
  roles?: string[]; // the original's "Roles:" line
  declares401: boolean; // the original declares 401 for the operation
}

/** The common query parameters of the query operations. */
const COMMON_QUERY: Record<string, [In, Spec]> = {
  Skip: ['query', 'nullable int'],
  Take: ['query', 'nullable int'],
  OrderBy: ['query', 'string'],
  OrderByDesc: ['query', 'string'],
  Include: ['query', 'string'],
  Fields: ['query', 'string'],
  Meta: ['query', 'map'],
};

/** The original's thirteen operations. */
export const OPERATIONS: Record<string, InterfaceOperation> = {
  DeleteResource: {
    method: 'delete',
    path: '/resource/{Id}',
    params: {
      Id: ['path', 'int !'],
      // "CompanyId nullable guid, required by declaration": see requiredMatches().
      CompanyId: ['query', 'nullable guid !'],
      Force: ['query', 'bool'],
    },
    response: 'ResourceQueryResponse',
    roles: WRITE_ROLES,
    declares401: true,
  },
  CreateArticleRebateCode: {
    method: 'post',
    path: '/rebatecodes/fromarticle',
    params: {},
    body: 'CreateArticleRebateCode',
    response: 'RebateCodeResponse',
    declares401: true,
  },
  GetRebateCodeBySign: {
    method: 'get',
    path: '/rebatecodes/getbysign',
    params: {
      CompanyId: ['query', 'guid !'],
      RebateCodeSign: ['query', 'string !'],
      ServiceId: ['query', 'int !'],
      Date: ['query', 'datetime'],
      IncludeConnectedServices: ['query', 'bool !'],
      IncludeConnectedDaysOfWeek: ['query', 'bool'],
      IncludeConnectedCustomers: ['query', 'bool'],
      CustomerEmail: ['query', 'string'],
    },
    response: 'RebateCodeResponse',
    declares401: true,
  },
  CreateRebateCodeTransaction: {
    method: 'post',
    path: '/rebatecodes/transactions',
    params: {},
    body: 'CreateRebateCodeTransaction',
    response: 'CreateRebateCodeTransaction response',
    roles: WRITE_ROLES,
    declares401: true,
  },
  DeleteCustomField: {
    method: 'delete',
    path: '/customfields/{Id}',
    params: {
      Id: ['path', 'int !'],
      CompanyId: ['query', 'nullable guid'],
    },
    response: 'CustomFieldQueryResponse',
    roles: WRITE_ROLES,
    declares401: false,
  },
  BookingPrintoutQuery: {
    method: 'get',
    path: '/reports/booking/printout',
    params: {
      CompanyId: ['query', 'nullable guid'],
      Id: ['query', 'nullable int'],
      ...COMMON_QUERY,
    },
    response: 'QueryResponse<PrintoutQueryResponse>',
    roles: PRINTOUT_ROLES,
    declares401: false,
  },
  CreateMessageTemplate: {
    method: 'post',
    path: '/messages/templates',
    params: {},
    body: 'CreateMessageTemplate',
    response: 'MessageTemplatesQueryResponse',
    roles: WRITE_ROLES,
    declares401: true,
  },
  DeleteTag: {
    method: 'delete',
    path: '/tags/{Id}',
    params: {
      Id: ['path', 'int !'],
      CompanyId: ['query', 'nullable guid'],
    },
    response: 'TagResponse',
    roles: WRITE_ROLES,
    declares401: true,
  },
  CreateResourceType: {
    method: 'post',
    path: '/resourcetypes',
    params: {},
    body: 'CreateResourceType',
    response: 'ResourceTypeQueryResponse',
    roles: WRITE_ROLES,
    declares401: true,
  },
  BillingMethodQuery: {
    method: 'get',
    path: '/billing/methods',
    params: {
      CountryId: ['query', 'string'],
      ...COMMON_QUERY,
    },
    response: 'QueryResponse<BillingMethodQueryResponse>',
    declares401: true,
  },
  CategoryQuery: {
    method: 'get',
    path: '/categories',
    params: {
      Id: ['query', 'nullable int'],
      ...COMMON_QUERY,
    },
    response: 'QueryResponse<CompanyCategoryQueryResponse>',
    declares401: false,
  },
  GetMcpUsage: {
    method: 'get',
    path: '/assistant/mcp/usage',
    params: {
      CompanyId: ['query', 'nullable guid'],
    },
    response: 'AiChatUsageResponse',
    declares401: true,
  },
  UpdateWebhookEndpoint: {
    method: 'put',
    path: '/webhook/endpoints/{Id}',
    params: {
      Id: ['path', 'string !'],
      CompanyId: ['query', 'guid !'],
    },
    body: 'UpdateWebhookEndpoint',
    response: 'WebhookEndpoint',
    roles: WRITE_ROLES,
    declares401: true,
  },
};

/** The original's error table: statuses declared only on some operations. */
export const STATUS_403_ONLY_ON = ['DeleteResource', 'CreateResourceType'];
export const STATUS_404_ON = ['DeleteTag'];
export const STATUS_409_ON = ['DeleteResource'];

/** The operation that needs no credentials (it has neither a Roles line nor a declared 401). */
export const UNAUTHENTICATED = 'CategoryQuery';

/**
 * The integer codes the API names, value → name: those of docs/decisions.md ("Reference
 * values"), the weekdays, and the original's ResourceCategory and booking statuses.
 */
export const CODES: Record<string, { fields: [string, string][]; names: Record<number, string> }> = {
  RebateCodeTypeId: {
    fields: [['RebateCodeResponse', 'RebateCodeTypeId'], ['RebateCodeTransactionQueryResponse', 'RebateCodeTypeId']],
    names: { 1: 'Percent', 2: 'Currency', 3: 'PunchTicket', 4: 'ValueCard', 5: 'GiftCard' },
  },
  RebateCodeStatusId: { fields: [['RebateCodeResponse', 'RebateCodeStatusId']], names: { 1: 'Active', 2: 'Inactive', 3: 'Expired' } },
  DaysOfWeek: {
    fields: [['DaysOfWeekResponse', 'Id']],
    names: { 1: 'Monday', 2: 'Tuesday', 3: 'Wednesday', 4: 'Thursday', 5: 'Friday', 6: 'Saturday', 7: 'Sunday' },
  },
  SendMethodId: { fields: [['MessageTypeQueryResponse', 'SendMethodId']], names: { 1: 'Email', 2: 'SMS' } },
  ResourceCategory: { fields: [['ResourceQueryResponse', 'ResourceCategory']], names: { 1: 'Object', 2: 'Person', 3: 'Room', 4: 'Relay' } },
  BookingStatusId: {
    fields: [['BookedTime', 'StatusId']],
    names: {
      1: 'Booked', 2: 'Unbooked', 3: 'Reserved', 4: 'Canceled', 5: 'AwaitingPayment', 6: 'AwaitingPaymentNoTimeLimit',
      7: 'Payed', 8: 'AwaitingPaymentRequestFromAdmin', 9: 'AwaitingPaymentFromProvider', 10: 'Invoiced',
    },
  },
};

/**
 * Roles the original implies without a Roles line: CreateArticleRebateCode is a write, and
 * writes need bookingsupplier-administrator-write or superadmin.
 */
export const DECIDED_ROLES: Record<string, string[]> = {
  CreateArticleRebateCode: ['bookingsupplier-administrator-write', 'superadmin'],
};
