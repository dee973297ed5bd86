// Checks the hand-written contract (openapi/openapi.yaml) against the service
// document (/work/shared/service-interface.md).
//
// Everything in the DOCUMENT section below is transcribed from the service document,
// not from the contract: operations, parameters, request bodies, response objects,
// roles and declared error statuses. The tests then read the contract with the `yaml`
// package, resolve `$ref`s with a small helper, and compare.
//
// Field type notation used in the transcription (the document's own vocabulary):
//   int            integer, int32 (or no format)      int16 / int32 / int64  exact format
//   double         number, format double              decimal  number (double/decimal/no format)
//   string         string (a refining format such as uri or email is allowed)
//   guid           string, format uuid                datetime  string, format date-time
//   timespan       string with an hh:mm:ss pattern    uri       string, format uri ("URI string")
//   bool           boolean                            map       object of string values
//   enum(A|B)      string enum with exactly these values, in this order
//   unspecified    the document names the field without giving a type (only the name is checked)
//   Name           another object transcribed below (checked recursively)
//   [T]            array of T
//   nullable T     the document says nullable (the value may be absent or null)
//   T !            the document says required

import t from 'tap';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { REBATE_CODE_STATUSES, REBATE_CODE_TYPES, WEEKDAYS } from '../../src/domain/rebate-code-reference.js';
import { BOOKING_STATUS_NAMES } from '../../src/domain/resources.js';

// ---------------------------------------------------------------------------
// DOCUMENT (transcribed from /work/shared/service-interface.md)
// ---------------------------------------------------------------------------

type Spec = string;
type Fields = Record<string, Spec>;

const WRITE_ROLES = ['bookingsupplier-administrator-write', 'superadmin'];
const PRINTOUT_ROLES = ['bookingsupplier-administrator-write', 'bookingsupplier-administrator-read', 'superadmin'];

const BOOKING_STATUS = 'enum(Booked|Unbooked|Reserved|Canceled|AwaitingPayment|AwaitingPaymentNoTimeLimit|Payed|AwaitingPaymentRequestFromAdmin|AwaitingPaymentFromProvider|Invoiced)';

/** Response objects of the document ("Resources and their fields"). Inline objects get dotted names. */
const RESPONSE_OBJECTS: Record<string, Fields> = {
  ResponseStatus: {
    ErrorCode: 'string',
    Message: 'string',
    StackTrace: 'string',
    Errors: '[ResponseStatus.Errors[]]',
    Meta: 'map',
  },
  'ResponseStatus.Errors[]': {
    ErrorCode: 'string',
    FieldName: 'string',
    Message: 'string',
    Meta: 'map',
  },
  ResourceQueryResponse: {
    Id: 'int',
    Name: 'string',
    Description: 'string',
    Active: 'bool',
    Color: 'string',
    Email: 'string',
    ImageUrl: 'uri',
    MobilePhone: 'string',
    AccessGroup: 'string',
    EmailNotification: 'bool',
    SMSNotification: 'bool',
    SendEmailReminder: 'nullable bool',
    SendSMSReminder: 'nullable bool',
    ResourceCategory: 'nullable int',
    RelayStartsBeforeMinutes: 'nullable int',
    Exceptions: '[TimeException]',
    Bookings: '[BookedTime]',
    Created: 'datetime',
    Updated: 'datetime',
    ResponseStatus: 'ResponseStatus',
  },
  TimeException: {
    Id: 'int',
    IsRecurring: 'bool',
    IsBlock: 'bool',
    ReasonText: 'string',
    ReasonTextPublic: 'string',
    From: 'datetime',
    To: 'datetime',
    ResourceIds: '[int]',
  },
  BookedTime: {
    Id: 'int',
    ServiceId: 'int',
    From: 'datetime',
    To: 'datetime',
    BookedSpots: 'int',
    TotalSpots: 'int',
    PauseAfterInMinutes: 'int',
    StatusId: 'int',
    Status: BOOKING_STATUS,
    Customer: 'BookedCustomer',
  },
  BookedCustomer: {
    Id: 'guid',
    Firstname: 'string',
    Lastname: 'string',
    Email: 'string',
    Phone: 'string',
    SocialUserName: 'string',
    ImageUrl: 'string',
    PersonalIdentityNumber: 'string',
    CorporateIdentityNumber: 'string',
    InvoiceAddress1: 'string',
    InvoiceAddress2: 'string',
    InvoiceCity: 'string',
    InvoicePostalCode: 'string',
    InvoiceCountryCode: 'string',
    Tags: '[TagResponse]',
  },
  TagResponse: {
    Id: 'int',
    CompanyId: 'guid',
    Name: 'string',
    Scope: 'int',
    Color: 'string',
    SortOrder: 'int',
    Active: 'bool',
    CreatedDate: 'datetime',
    ResponseStatus: 'ResponseStatus',
  },
  RebateCodeResponse: {
    Id: 'int',
    CompanyId: 'nullable guid',
    ValidFrom: 'datetime',
    ValidTo: 'datetime',
    FromTime: 'timespan',
    ToTime: 'timespan',
    CreatedBy: 'string',
    UpdatedBy: 'string',
    Created: 'datetime',
    Updated: 'datetime',
    PersonalNote: 'string',
    RebateCodeSign: 'string',
    RebateCodeValue: 'int',
    RebateCodeTypeId: 'int',
    Name: 'string',
    RebateCodeStatusId: 'int',
    StatusName: 'string',
    MaxNumberOfUses: 'int',
    MaxNumberOfUsesPerCustomer: 'int',
    NumberOfUsesUsed: 'int',
    DaysOfWeek: '[DaysOfWeekResponse]',
    Services: '[RebateCodeServiceResponse]',
    Article: 'ArticleResponse',
    Transactions: '[RebateCodeTransactionQueryResponse]',
    RemainingAmount: 'nullable double',
    RemainingUsage: 'nullable int',
    Customers: '[RebateCodeCustomerResponse]',
    ResponseStatus: 'ResponseStatus',
    PaymentReceived: 'bool',
    RebateCodeCurrencySign: 'string',
    ActiveByStatus: 'bool',
    PriceSign: 'string',
    RebateCodeTypeName: 'string',
    Company: 'RebateCodeResponse.Company',
    PaymentLog: '[PaymentLogResponse]',
  },
  'RebateCodeResponse.Company': {
    SitePath: 'string',
    PaymentProviderId: 'nullable int',
  },
  DaysOfWeekResponse: {
    Id: 'int',
    DayOfWeek: 'string',
    DayOfWeekTranslation: 'string',
    DayOfWeekActive: 'nullable bool',
    DayOfWeekSortOrder: 'nullable int16',
  },
  RebateCodeServiceResponse: {
    Id: 'int',
    Name: 'string',
    Description: 'string',
    Active: 'bool',
  },
  RebateCodeCustomerResponse: {
    Id: 'guid',
    Firstname: 'string',
    Lastname: 'string',
    Email: 'string',
    Phone: 'string',
    ImageUrl: 'string',
  },
  RebateCodeTransactionQueryResponse: {
    Id: 'int',
    CompanyId: 'guid',
    Note: 'string',
    RebateCodeId: 'int',
    RebateCodeSign: 'string',
    RebateCodeTypeId: 'nullable int',
    RebateCodeTypeName: 'string',
    Amount: 'double',
    Usage: 'string',
    BookingId: 'nullable int',
    UpdatedDate: 'datetime',
    CreatedDate: 'datetime',
    Service: 'RebateCodeServiceResponse',
    Customer: 'RebateCodeCustomerResponse',
    PriceSign: 'string',
  },
  PaymentLogResponse: {
    Id: 'int',
    Amount: 'nullable double',
    AmountCredited: 'nullable double',
    CurrencyId: 'string',
    Comments: 'string',
    Created: 'datetime',
    Updated: 'datetime',
  },
  ArticleResponse: {
    CompanyId: 'guid',
    Id: 'int',
    Name: 'string',
    ArticleTypeId: 'int',
    Description: 'string',
    ImageUrl: 'string',
    Active: 'bool',
    Amount: 'int',
    Price: 'double',
    CurrencyId: 'string',
    SortOrder: 'int',
    UpdatedDate: 'datetime',
    CreatedDate: 'datetime',
    Duration: 'int',
    Services: '[ArticleServiceRelation]',
    ServiceIds: '[int]',
    PriceSign: 'string',
    VAT: 'nullable decimal',
    ValidDays: 'int',
    MaxQuantity: 'int',
    SendNotification: 'bool',
    NotificationEmail: 'string',
  },
  ArticleServiceRelation: {
    CompanyId: 'guid !',
    Id: 'int',
    ServiceId: 'int !',
    ArticleId: 'int !',
  },
  CustomFieldQueryResponse: {
    Id: 'int',
    CompanyId: 'guid',
    GroupId: 'nullable int',
    FieldId: 'int',
    Name: 'string',
    Width: 'int',
    Column: 'string',
    Description: 'string',
    DataType: 'string',
    DefaultValue: 'string',
    IsMandatory: 'bool',
    MandatoryErrorMessage: 'string',
    MaxLength: 'int',
    MultipleLineText: 'bool',
    RegEx: 'string',
    RegExId: 'nullable int',
    RegExErrorMessage: 'string',
    IsPublic: 'bool',
    IsHidden: 'bool',
    SortOrder: 'int',
    Table: 'string',
    Values: '[CustomFieldQueryResponse.Values[]]',
    Services: '[CustomFieldQueryResponse.Services[]]',
  },
  'CustomFieldQueryResponse.Values[]': {
    Id: 'nullable int',
    Active: 'nullable bool',
    SortOrder: 'nullable int',
    Value: 'string',
  },
  'CustomFieldQueryResponse.Services[]': {
    Id: 'int',
    Name: 'string',
    ImageUrl: 'uri',
  },
  PrintoutQueryResponse: {
    Id: 'int',
    Name: 'string',
    HeaderLeftCell: 'string',
    HeaderMiddleCell: 'string',
    HeaderRightCell: 'string',
    BodyCell: 'string',
    FooterLeftCell: 'string',
    FooterMiddleCell: 'string',
    FooterRightCell: 'string',
  },
  MessageTemplatesQueryResponse: {
    Id: 'int',
    Name: 'string',
    Title: 'string',
    Body: 'string',
    Sender: 'string',
    Default: 'bool',
    MessageType: 'MessageTypeQueryResponse',
    Language: 'string',
    Services: '[MessageServices]',
  },
  MessageTypeQueryResponse: {
    Id: 'int',
    Name: 'string',
    Description: 'string',
    MaxCharacters: 'int',
    DefaultText: 'string',
    SendMethodId: 'int',
  },
  MessageServices: {
    Id: 'int',
    Name: 'string',
    ImageUrl: 'uri',
  },
  ResourceTypeQueryResponse: {
    Id: 'int',
    Name: 'string',
    Description: 'string',
    Resources: '[ResourceTypeResource]',
    Active: 'bool',
    Created: 'datetime',
    Updated: 'datetime',
  },
  ResourceTypeResource: {
    Id: 'int',
    Name: 'unspecified',
    Active: 'bool',
    Description: 'unspecified',
    Email: 'unspecified',
    Phone: 'unspecified',
    Color: 'unspecified',
    ImageUrl: 'uri',
    Priority: 'int',
    EmailNotification: 'bool',
    SMSNotification: 'bool',
    EmailReminder: 'bool',
    SMSReminder: 'bool',
  },
  BillingMethodQueryResponse: {
    Id: 'int',
    Name: 'string',
    Description: 'string',
    Countries: '[string]',
  },
  CompanyCategoryQueryResponse: {
    Id: 'int',
    Name: 'string',
    NormalizedName: 'string',
    Active: 'bool',
  },
  AiChatUsageResponse: {
    CompanyId: 'guid',
    TokensUsed: 'int64',
    TokenLimit: 'int32',
    TokensRemaining: 'int64',
    IsWithinBudget: 'bool',
    WindowDays: 'int32',
    ResponseStatus: 'ResponseStatus',
  },
  WebhookEndpoint: {
    Description: 'string',
    Url: 'string',
    Id: 'string',
    Disabled: 'bool',
    EventTypes: '[string]',
    Secret: 'string',
  },
  'QueryResponse<PrintoutQueryResponse>': {
    Offset: 'int',
    Total: 'int',
    Results: '[PrintoutQueryResponse]',
    Meta: 'map',
    ResponseStatus: 'ResponseStatus',
  },
  'QueryResponse<BillingMethodQueryResponse>': {
    Offset: 'int',
    Total: 'int',
    Results: '[BillingMethodQueryResponse]',
    Meta: 'map',
    ResponseStatus: 'ResponseStatus',
  },
  'QueryResponse<CompanyCategoryQueryResponse>': {
    Offset: 'int',
    Total: 'int',
    Results: '[CompanyCategoryQueryResponse]',
    Meta: 'map',
    ResponseStatus: 'ResponseStatus',
  },
  'CreateRebateCodeTransaction response': {
    ResponseStatus: 'ResponseStatus',
    RebateCodeTransactionItem: 'RebateCodeTransactionQueryResponse',
  },
};

/** Request body objects of the document ("Body:" lines). "Strings unless stated" applies to CreateArticleRebateCode. */
const REQUEST_OBJECTS: Record<string, Fields> = {
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
    // Required though the document marks nothing: a constraint it implies (a resource
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
interface Operation {
  method: 'get' | 'put' | 'post' | 'delete';
  path: string;
  params: Record<string, [In, Spec]>;
  body?: string; // a REQUEST_OBJECTS name
  response: string; // a RESPONSE_OBJECTS name
  roles?: string[]; // the document's "Roles:" line
  declares401: boolean; // the document declares 401 for the operation
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

const OPERATIONS: Record<string, Operation> = {
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

/** The document's error table: statuses declared only on some operations. */
const STATUS_403_ONLY_ON = ['DeleteResource', 'CreateResourceType'];
const STATUS_404_ON = ['DeleteTag'];
const STATUS_409_ON = ['DeleteResource'];

/** The operation that needs no credentials (it has neither a Roles line nor a declared 401). */
const UNAUTHENTICATED = 'CategoryQuery';


// ---------------------------------------------------------------------------
// Contract reading
// ---------------------------------------------------------------------------

type Obj = Record<string, any>;

const contractUrl = new URL('../../openapi/openapi.yaml', import.meta.url);
const contract: Obj = parse(readFileSync(contractUrl, 'utf8')) as Obj;

/** Looks up a local JSON pointer (`#/components/schemas/X`) in the contract. */
function pointer(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: unknown = contract;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in (node as Obj))) {
      throw new Error(`$ref does not resolve: ${ref}`);
    }
    node = (node as Obj)[key];
  }
  return node;
}

/** Follows `$ref`s until a node without one is reached. */
function deref<T = Obj>(node: unknown): T {
  const seen = new Set<string>();
  let current = node;
  while (current !== null && typeof current === 'object' && typeof (current as Obj).$ref === 'string') {
    const ref = (current as Obj).$ref as string;
    if (seen.has(ref)) throw new Error(`$ref cycle at ${ref}`);
    seen.add(ref);
    current = pointer(ref);
  }
  return current as T;
}

/** Every `$ref` string anywhere in the contract. */
function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) allRefs(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Obj)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else allRefs(value, out);
    }
  }
  return out;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  op: Obj;
  params: Obj[]; // resolved, path-level merged with operation-level
}

function contractOperations(): ContractOperation[] {
  const out: ContractOperation[] = [];
  for (const [path, rawItem] of Object.entries((contract.paths ?? {}) as Obj)) {
    const item = deref(rawItem);
    const pathParams: Obj[] = (item.parameters ?? []).map((p: unknown) => deref(p));
    for (const method of HTTP_METHODS) {
      const op = item[method] as Obj | undefined;
      if (!op) continue;
      const opParams: Obj[] = (op.parameters ?? []).map((p: unknown) => deref(p));
      const merged = new Map<string, Obj>();
      for (const p of [...pathParams, ...opParams]) merged.set(`${p.in}:${p.name}`, p);
      out.push({ operationId: op.operationId, method, path, op, params: [...merged.values()] });
    }
  }
  return out;
}

const ops = contractOperations();
const opById = new Map(ops.map((o) => [o.operationId, o]));

function jsonSchemaOf(responseOrBody: unknown): Obj | undefined {
  const resolved = deref(responseOrBody);
  const schema = resolved?.content?.['application/json']?.schema;
  return schema === undefined ? undefined : deref(schema);
}

// ---------------------------------------------------------------------------
// Type notation
// ---------------------------------------------------------------------------

interface ParsedSpec {
  nullable: boolean;
  required: boolean;
  array: boolean;
  base: string; // primitive name, enum(...), or an object name
}

function parseSpec(spec: Spec): ParsedSpec {
  let rest = spec.trim();
  let required = false;
  let nullable = false;
  if (rest.endsWith(' !')) {
    required = true;
    rest = rest.slice(0, -2).trim();
  }
  if (rest.startsWith('nullable ')) {
    nullable = true;
    rest = rest.slice('nullable '.length).trim();
  }
  let array = false;
  if (rest.startsWith('[') && rest.endsWith(']')) {
    array = true;
    rest = rest.slice(1, -1);
  }
  return { nullable, required, array, base: rest };
}

const PRIMITIVES = new Set([
  'int', 'int16', 'int32', 'int64', 'double', 'decimal', 'string', 'guid', 'datetime', 'timespan', 'uri', 'bool', 'map', 'unspecified',
]);

function isObjectBase(base: string): boolean {
  return !PRIMITIVES.has(base) && !base.startsWith('enum(');
}

/**
 * Problems of a (resolved) contract schema against one base type of the notation.
 * Object bases are only checked to be objects here; their fields are compared separately.
 */
function baseProblems(schema: Obj, base: string): string[] {
  const p: string[] = [];
  const expect = (type: string, formats: (string | undefined)[]) => {
    if (schema.type !== type) p.push(`type is ${schema.type}, expected ${type}`);
    if (!formats.includes(schema.format)) {
      p.push(`format is ${schema.format ?? '(none)'}, expected ${formats.map((f) => f ?? '(none)').join(' or ')}`);
    }
  };
  if (base.startsWith('enum(')) {
    const values = base.slice('enum('.length, -1).split('|');
    if (schema.type !== 'string') p.push(`type is ${schema.type}, expected string`);
    if (JSON.stringify(schema.enum) !== JSON.stringify(values)) {
      p.push(`enum is ${JSON.stringify(schema.enum)}, expected ${JSON.stringify(values)}`);
    }
    return p;
  }
  switch (base) {
    case 'unspecified':
      break;
    case 'int':
      expect('integer', ['int32', undefined]);
      break;
    case 'int16':
    case 'int32':
    case 'int64':
      expect('integer', [base]);
      break;
    case 'double':
      expect('number', ['double']);
      break;
    case 'decimal':
      expect('number', ['double', 'decimal', undefined]);
      break;
    case 'string':
      // A refining format (uri, email) does not contradict "string"; a data format would.
      expect('string', [undefined, 'uri', 'email']);
      if (schema.enum !== undefined) p.push('has an enum the document does not give');
      break;
    case 'guid':
      expect('string', ['uuid']);
      break;
    case 'datetime':
      expect('string', ['date-time']);
      break;
    case 'uri':
      expect('string', ['uri']);
      break;
    case 'bool':
      if (schema.type !== 'boolean') p.push(`type is ${schema.type}, expected boolean`);
      break;
    case 'timespan': {
      if (schema.type !== 'string') p.push(`type is ${schema.type}, expected string`);
      if (typeof schema.pattern !== 'string') {
        p.push('has no hh:mm:ss pattern');
        break;
      }
      const re = new RegExp(schema.pattern);
      for (const ok of ['00:00:00', '08:30:00', '23:59:59']) if (!re.test(ok)) p.push(`pattern rejects ${ok}`);
      for (const bad of ['8:30', '08:30', '24:00:00', '12:60:00', '2024-01-01T08:00:00Z', 'noon']) {
        if (re.test(bad)) p.push(`pattern accepts ${bad}`);
      }
      break;
    }
    case 'map': {
      if (schema.type !== 'object') p.push(`type is ${schema.type}, expected object`);
      const ap = deref(schema.additionalProperties);
      if (ap === undefined || ap === null || typeof ap !== 'object' || ap.type !== 'string') {
        p.push('additionalProperties is not a string schema');
      }
      break;
    }
    default:
      if (schema.type !== 'object') p.push(`type is ${schema.type}, expected object (${base})`);
  }
  return p;
}

/** Problems of a contract property against a full spec (array wrapping included, nullable excluded). */
function specProblems(property: unknown, spec: ParsedSpec): string[] {
  let schema = deref(property);
  if (spec.array) {
    if (schema.type !== 'array') return [`type is ${schema.type}, expected array`];
    schema = deref(schema.items);
  }
  return baseProblems(schema, spec.base);
}

/**
 * Problems of a parameter's schema. A parameter may take its value in more than one form
 * (`anyOf`: Meta is the map, or the map as one JSV text for clients that send no
 * deepObject maps); it matches when one form has the document's type.
 */
function parameterProblems(schema: unknown, spec: ParsedSpec): string[] {
  const forms = deref(schema).anyOf as unknown[] | undefined;
  if (!forms) return specProblems(schema, spec);
  const problems = forms.map((form) => specProblems(form, spec));
  return problems.some((p) => p.length === 0) ? [] : problems.flat();
}

/** The object schema a property leads to (through an array's items), for recursive checks. */
function objectTarget(property: unknown, spec: ParsedSpec): Obj | undefined {
  let schema = deref(property);
  if (spec.array) schema = deref(schema?.items);
  return schema?.type === 'object' ? schema : undefined;
}

/**
 * The document writes "nullable guid, required" (CreateRebateCodeTransaction.CompanyId)
 * and "nullable guid, required by declaration" (DeleteResource's CompanyId), while its
 * conventions define nullable as "the value may be absent or null". Such a field may be
 * declared required or optional; any other field's required flag must be exactly the
 * document's.
 */
function requiredMatches(spec: ParsedSpec, contractRequired: boolean): boolean {
  if (spec.required && spec.nullable) return true;
  return spec.required === contractRequired;
}

// ---------------------------------------------------------------------------
// Walking the contract from the operations, pairing contract schemas with document objects
// ---------------------------------------------------------------------------

interface Instance {
  where: string; // how the schema was reached, for messages
  schema: Obj;
}

function collect(
  objects: Record<string, Fields>,
  name: string,
  schema: Obj,
  where: string,
  into: Map<string, Instance[]>,
  depth = 0,
): void {
  if (depth > 20) return;
  const list = into.get(name) ?? [];
  list.push({ where, schema });
  into.set(name, list);
  const fields = objects[name];
  if (!fields) return;
  for (const [field, raw] of Object.entries(fields)) {
    const spec = parseSpec(raw);
    if (!isObjectBase(spec.base)) continue;
    const property = schema.properties?.[field];
    if (property === undefined) continue;
    const target = objectTarget(property, spec);
    if (target) collect(objects, spec.base, target, `${where}.${field}${spec.array ? '[]' : ''}`, into, depth + 1);
  }
}

const responseInstances = new Map<string, Instance[]>();
for (const [id, doc] of Object.entries(OPERATIONS)) {
  const found = opById.get(id);
  const schema = found ? jsonSchemaOf(found.op.responses?.['200']) : undefined;
  if (schema) collect(RESPONSE_OBJECTS, doc.response, schema, `${id} 200`, responseInstances);
}
// ResponseStatus is also reached through the error responses.
for (const o of ops) {
  for (const [status, response] of Object.entries((o.op.responses ?? {}) as Obj)) {
    if (!/^4\d\d$/.test(status) && status !== 'default') continue;
    const schema = jsonSchemaOf(response);
    const rs = schema?.properties?.ResponseStatus;
    if (rs !== undefined) collect(RESPONSE_OBJECTS, 'ResponseStatus', deref(rs), `${o.operationId} ${status}`, responseInstances);
  }
}

const requestInstances = new Map<string, Instance[]>();
for (const [id, doc] of Object.entries(OPERATIONS)) {
  if (!doc.body) continue;
  const found = opById.get(id);
  const schema = found?.op.requestBody ? jsonSchemaOf(found.op.requestBody) : undefined;
  if (schema) collect(REQUEST_OBJECTS, doc.body, schema, `${id} body`, requestInstances);
}

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

function fieldSetDiff(schema: Obj, fields: Fields): { missing: string[]; extra: string[] } {
  const actual = new Set(Object.keys(schema.properties ?? {}));
  const expected = new Set(Object.keys(fields));
  return {
    missing: sorted([...expected].filter((f) => !actual.has(f))),
    extra: sorted([...actual].filter((f) => !expected.has(f))),
  };
}

function isRequired(schema: Obj, field: string): boolean {
  return Array.isArray(schema.required) && schema.required.includes(field);
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

t.test('every $ref in the contract resolves', async (t) => {
  const refs = [...new Set(allRefs(contract))];
  t.ok(refs.length > 0, 'the contract uses $refs');
  for (const ref of refs) t.doesNotThrow(() => pointer(ref), ref);
});

t.test('the contract is OpenAPI 3.0.3', async (t) => {
  t.equal(contract.openapi, '3.0.3');
});

t.test('exactly the thirteen operations of the document, with their methods and paths, and extensions marked as such', async (t) => {
  const expected = Object.entries(OPERATIONS).map(([id, o]) => `${id} ${o.method.toUpperCase()} ${o.path}`);
  const documented = ops.filter((o) => o.op['x-extension'] !== true);
  const actual = documented.map((o) => `${o.operationId} ${o.method.toUpperCase()} ${o.path}`);
  const extensions = ops.filter((o) => o.op['x-extension'] === true);
  t.ok(extensions.every((o) => !(o.operationId in OPERATIONS)), 'no operation of the document is marked as an extension');
  t.strictSame(extensions.map((o) => o.operationId), ['WebhookEndpointMessageQuery'], 'the extensions');
  t.equal(expected.length, 13, 'the document names thirteen operations');
  t.strictSame(sorted(actual), sorted(expected));
  t.equal(new Set(ops.map((o) => o.operationId)).size, ops.length, 'operationIds are unique');
});

t.test('every operation accepts the documented `format` query parameter', async (t) => {
  for (const o of ops) {
    const format = o.params.find((p) => p.name === 'format');
    t.ok(format, `${o.operationId} has a format parameter`);
    if (!format) continue;
    t.equal(format.in, 'query', `${o.operationId} format is in query`);
    t.not(format.required, true, `${o.operationId} format is optional`);
    t.equal(deref(format.schema)?.type, 'string', `${o.operationId} format is a string`);
  }
});

t.test('operation parameters match the document (name, in, required, type)', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    t.test(id, async (t) => {
      const found = opById.get(id);
      if (!found) return t.fail(`${id} is missing from the contract`);
      const params = found.params.filter((p) => p.name !== 'format');
      t.strictSame(
        sorted(params.map((p) => `${p.in}:${p.name}`)),
        sorted(Object.entries(doc.params).map(([name, [where]]) => `${where}:${name}`)),
        'parameter names and locations',
      );
      for (const [name, [where, raw]] of Object.entries(doc.params)) {
        const p = params.find((x) => x.name === name && x.in === where);
        if (!p) continue;
        const spec = parseSpec(raw);
        const required = p.required === true;
        t.ok(
          requiredMatches(spec, required),
          `${name}: required is ${required}, document says ${spec.required ? 'required' : 'optional'}`,
        );
        // nullable is not compared for parameters: an absent query value is the null.
        t.strictSame(parameterProblems(p.schema, spec), [], `${name}: ${raw}`);
      }
      // Every path template variable is a declared path parameter.
      for (const [, variable] of found.path.matchAll(/\{([^}]+)\}/g)) {
        const p = found.params.find((x) => x.in === 'path' && x.name === variable);
        t.ok(p?.required === true, `path variable {${variable}} is a required path parameter`);
      }
    });
  }
});

t.test('request body field names equal the document\'s lists', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const found = opById.get(id);
    if (!doc.body) {
      t.notOk(found?.op.requestBody, `${id} has no request body`);
      continue;
    }
    t.ok(requestInstances.has(doc.body), `${id} has an application/json request body`);
  }
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(name, async (t) => {
      const instances = requestInstances.get(name) ?? [];
      t.ok(instances.length > 0, `${name} is reached from an operation's request body`);
      for (const { where, schema } of instances) {
        t.strictSame(fieldSetDiff(schema, fields), { missing: [], extra: [] }, `${where}: same field names, exact case`);
      }
    });
  }
});

t.test('request body field types match the document', async (t) => {
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of requestInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          const spec = parseSpec(raw);
          t.strictSame(specProblems(property, spec), [], `${where}.${field}: ${raw}`);
          if (spec.nullable) t.equal(deref(property).nullable, true, `${where}.${field} is nullable`);
        }
      }
    });
  }
});

t.test('request body required fields match the document', async (t) => {
  for (const [name, fields] of Object.entries(REQUEST_OBJECTS)) {
    t.test(`${name} body required fields`, async (t) => {
      for (const { where, schema } of requestInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const spec = parseSpec(raw);
          const required = isRequired(schema, field);
          t.ok(
            requiredMatches(spec, required),
            `${where}.${field}: required is ${required}, document says ${spec.required ? 'required' : 'optional'}`,
          );
        }
        const undocumented = (schema.required ?? []).filter((f: string) => !(f in fields));
        t.strictSame(undocumented, [], `${where}: no required field outside the document's list`);
      }
    });
  }
});

t.test('UpdateWebhookEndpoint requires at least one event type', async (t) => {
  const schema = requestInstances.get('UpdateWebhookEndpoint')?.[0]?.schema;
  const eventTypes = deref(schema?.properties?.EventTypes);
  t.ok(eventTypes?.minItems >= 1, 'EventTypes has minItems >= 1');
});

t.test('each response object has exactly the document\'s field names', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      const instances = responseInstances.get(name) ?? [];
      t.ok(instances.length > 0, `${name} is reached from an operation's response`);
      for (const { where, schema } of instances) {
        t.equal(schema.type, 'object', `${where} is an object`);
        t.strictSame(fieldSetDiff(schema, fields), { missing: [], extra: [] }, `${where}: same field names, exact case`);
      }
    });
  }
});

t.test('response field types and formats match the document', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          t.strictSame(specProblems(property, parseSpec(raw)), [], `${where}.${field}: ${raw}`);
        }
      }
    });
  }
});

t.test('response fields are nullable exactly where the document says nullable', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    t.test(name, async (t) => {
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        for (const [field, raw] of Object.entries(fields)) {
          const property = schema.properties?.[field];
          if (property === undefined) continue;
          const expected = parseSpec(raw).nullable;
          t.equal(deref(property).nullable === true, expected, `${where}.${field} nullable: ${expected}`);
        }
      }
    });
  }
});

t.test('response fields the document marks required are required', async (t) => {
  for (const [name, fields] of Object.entries(RESPONSE_OBJECTS)) {
    for (const [field, raw] of Object.entries(fields)) {
      if (!parseSpec(raw).required) continue;
      for (const { where, schema } of responseInstances.get(name) ?? []) {
        t.ok(isRequired(schema, field), `${where}.${field} is required`);
      }
    }
  }
});

t.test('BookingStatusEnum has the document\'s ten values', async (t) => {
  const instances = responseInstances.get('BookedTime') ?? [];
  t.ok(instances.length > 0);
  for (const { where, schema } of instances) {
    const status = deref(schema.properties?.Status);
    t.strictSame(status?.enum, [
      'Booked', 'Unbooked', 'Reserved', 'Canceled', 'AwaitingPayment', 'AwaitingPaymentNoTimeLimit',
      'Payed', 'AwaitingPaymentRequestFromAdmin', 'AwaitingPaymentFromProvider', 'Invoiced',
    ], `${where}.Status`);
    t.equal(deref(schema.properties?.StatusId)?.type, 'integer', `${where}.StatusId carries the numeric value`);
  }
});

t.test('ChangeType has the values Increase and Decrease', async (t) => {
  const schema = requestInstances.get('CreateRebateCodeTransaction')?.[0]?.schema;
  const changeType = deref(schema?.properties?.ChangeType);
  t.strictSame(changeType?.enum, ['Increase', 'Decrease']);
  t.ok(isRequired(schema ?? {}, 'ChangeType'), 'ChangeType is required');
});

/**
 * The integer codes whose values the documents give (product-decisions §6; ResourceCategory
 * and the booking statuses in the service document), transcribed: value → name.
 */
const CODES: Record<string, { fields: [string, string][]; names: Record<number, string> }> = {
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

t.test('documented integer codes are enums naming each value in x-enum-varnames', async (t) => {
  for (const [code, { fields, names }] of Object.entries(CODES)) {
    for (const [object, field] of fields) {
      const instances = responseInstances.get(object) ?? [];
      t.ok(instances.length > 0, `${object} is reached`);
      for (const { where, schema } of instances) {
        const p = deref(schema.properties?.[field]);
        const values = (p.enum as unknown[] | undefined)?.filter((v) => v !== null);
        t.strictSame(values, Object.keys(names).map(Number), `${where}.${field}: the ${code} values`);
        t.strictSame(p['x-enum-varnames'], Object.values(names), `${where}.${field}: the ${code} names, in the order of enum`);
        t.equal(p.enum.includes(null), p.nullable === true, `${where}.${field}: null is a value exactly when the field is nullable`);
        t.match(p.description, /\S/, `${where}.${field} is described`);
      }
    }
  }
});

t.test('the server names codes as the contract does', async (t) => {
  t.strictSame(REBATE_CODE_TYPES, CODES.RebateCodeTypeId.names);
  t.strictSame(REBATE_CODE_STATUSES, CODES.RebateCodeStatusId.names);
  t.strictSame(Object.fromEntries(WEEKDAYS.map((d) => [d.id, d.english])), CODES.DaysOfWeek.names);
  t.strictSame(BOOKING_STATUS_NAMES, CODES.BookingStatusId.names);
});

/** Every schema (and sub-schema) of the contract, with where it is. */
function allSchemas(node: unknown, where: string, out: [string, Obj][] = []): [string, Obj][] {
  if (Array.isArray(node)) node.forEach((item, i) => allSchemas(item, `${where}[${i}]`, out));
  else if (node !== null && typeof node === 'object') {
    if (typeof (node as Obj).type === 'string') out.push([where, node as Obj]);
    for (const [key, value] of Object.entries(node as Obj)) allSchemas(value, `${where}.${key}`, out);
  }
  return out;
}

t.test('int64 only for the MCP token counters, whose sums may pass 2^31', async (t) => {
  const int64 = allSchemas(contract, '#').filter(([, schema]) => schema.format === 'int64').map(([where]) => where);
  t.strictSame(int64, [
    '#.components.schemas.AiChatUsageResponse.properties.TokensUsed',
    '#.components.schemas.AiChatUsageResponse.properties.TokensRemaining',
  ]);
});

// Generators name their own types after operations and components: @hey-api/openapi-ts
// `<OperationId>Data/Error/Errors/Response/Responses` and a type per schema, parameter and
// request body; orval `<OperationId>Params/Result/Body` and `<Name>Response`,
// `<Name>Body`, `<Name>Parameter` for response, request body and parameter components.
// A clash makes one of them rename a type (`CreateArticleRebateCode2`) or fail to compile
// (`Duplicate identifier`); test/clients proves the outcome, these rules keep it so.
t.test('component names cannot clash with the names generators derive', async (t) => {
  const components = (contract.components ?? {}) as Obj;
  const schemas = Object.keys(components.schemas ?? {});
  const taken = new Map(schemas.map((name) => [name.toLowerCase(), `schema ${name}`]));
  const claim = (name: string, by: string) => {
    const holder = taken.get(name.toLowerCase());
    t.notOk(holder, `${by} does not clash with ${holder ?? 'anything'}`);
    taken.set(name.toLowerCase(), by);
  };
  t.notOk(components.requestBodies, 'request bodies are declared in their operations');
  for (const name of Object.keys(components.parameters ?? {})) {
    claim(name, `parameter ${name}`);
    claim(`${name}Parameter`, `orval's ${name}Parameter`);
  }
  for (const name of Object.keys(components.responses ?? {})) claim(`${name}Response`, `orval's ${name}Response`);
  for (const o of ops) {
    for (const suffix of ['Data', 'Error', 'Errors', 'Response', 'Responses', 'Params', 'Result', 'Body']) {
      claim(`${o.operationId}${suffix}`, `${o.operationId}${suffix}`);
    }
    t.notOk(o.op.responses?.['200']?.$ref, `${o.operationId}: the 200 answer is declared in place`);
  }
});

t.test('MCP usage counters: TokensUsed/TokensRemaining int64, TokenLimit/WindowDays int32, TokensRemaining never negative', async (t) => {
  const instances = responseInstances.get('AiChatUsageResponse') ?? [];
  t.ok(instances.length > 0);
  for (const { schema } of instances) {
    const p = (name: string) => deref(schema.properties?.[name]);
    t.strictSame([p('TokensUsed')?.type, p('TokensUsed')?.format], ['integer', 'int64'], 'TokensUsed');
    t.strictSame([p('TokensRemaining')?.type, p('TokensRemaining')?.format], ['integer', 'int64'], 'TokensRemaining');
    t.strictSame([p('TokenLimit')?.type, p('TokenLimit')?.format], ['integer', 'int32'], 'TokenLimit');
    t.strictSame([p('WindowDays')?.type, p('WindowDays')?.format], ['integer', 'int32'], 'WindowDays');
    t.equal(p('TokensRemaining')?.minimum, 0, 'TokensRemaining has minimum 0');
  }
});

t.test('"URI string" ImageUrl fields have format uri', async (t) => {
  const uriFields: [string, string][] = [
    ['ResourceQueryResponse', 'ImageUrl'],
    ['CustomFieldQueryResponse.Services[]', 'ImageUrl'],
    ['MessageServices', 'ImageUrl'],
    ['ResourceTypeResource', 'ImageUrl'],
  ];
  for (const [name, field] of uriFields) {
    t.equal(RESPONSE_OBJECTS[name]?.[field], 'uri', `${name}.${field} is a URI in the transcription`);
    const instances = responseInstances.get(name) ?? [];
    t.ok(instances.length > 0, `${name} is reached`);
    for (const { where, schema } of instances) {
      const p = deref(schema.properties?.[field]);
      t.strictSame([p?.type, p?.format], ['string', 'uri'], `${where}.${field}`);
    }
  }
});

t.test('FromTime and ToTime are hh:mm:ss timespans', async (t) => {
  const instances = responseInstances.get('RebateCodeResponse') ?? [];
  t.ok(instances.length > 0);
  for (const { where, schema } of instances) {
    for (const field of ['FromTime', 'ToTime']) {
      t.strictSame(specProblems(schema.properties?.[field], parseSpec('timespan')), [], `${where}.${field}`);
    }
  }
});

// The wire format (product-decisions §3) offers JSON and CSV on every operation. The content
// maps declare JSON alone, so that generated clients type each answer and body as its schema
// (not "schema or text"); `x-csv: true` says the operation speaks CSV as well.
t.test('every operation answers JSON in its content maps and is marked x-csv for CSV', async (t) => {
  for (const o of ops) {
    t.equal(o.op['x-csv'], true, `${o.operationId} is marked x-csv`);
    const ok = deref(o.op.responses?.['200']);
    t.ok(ok?.content?.['application/json']?.schema, `${o.operationId} 200 application/json`);
    for (const [status, response] of Object.entries((o.op.responses ?? {}) as Obj)) {
      t.strictSame(Object.keys(deref(response)?.content ?? {}), ['application/json'], `${o.operationId} ${status} declares JSON alone`);
    }
    const successes = Object.keys(o.op.responses ?? {}).filter((s) => /^[123]\d\d$|^[123]XX$/.test(s));
    t.strictSame(successes, ['200'], `${o.operationId}: 200 is the only success status`);
  }
});

t.test('POST and PUT request bodies are required and declare JSON (x-csv adds CSV)', async (t) => {
  for (const o of ops) {
    if (o.method !== 'post' && o.method !== 'put') continue;
    const body = deref(o.op.requestBody);
    t.ok(body, `${o.operationId} has a request body`);
    t.equal(body?.required, true, `${o.operationId} request body is required`);
    t.strictSame(Object.keys(body?.content ?? {}), ['application/json'], `${o.operationId} body declares JSON alone`);
  }
});

t.test('security: CategoryQuery is open, every other operation uses bearerAuth', async (t) => {
  const scheme = deref(contract.components?.securitySchemes?.bearerAuth);
  t.equal(scheme?.type, 'http', 'bearerAuth is an http scheme');
  t.equal(scheme?.scheme, 'bearer', 'bearerAuth is a bearer scheme');
  for (const o of ops) {
    const effective = o.op.security ?? contract.security;
    if (o.operationId === UNAUTHENTICATED) {
      t.strictSame(o.op.security, [], `${o.operationId} declares security: []`);
    } else {
      t.strictSame(effective, [{ bearerAuth: [] }], `${o.operationId} uses bearerAuth`);
    }
  }
});

/**
 * Roles the document implies without a Roles line: CreateArticleRebateCode is a write, and
 * "write operations require bookingsupplier-administrator-write or superadmin"
 * (product-decisions §2).
 */
const DECIDED_ROLES: Record<string, string[]> = {
  CreateArticleRebateCode: ['bookingsupplier-administrator-write', 'superadmin'],
};

t.test('x-roles lists are exactly the document\'s Roles lines, or the roles decided for writes', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const found = opById.get(id);
    if (!found) {
      t.fail(`${id} is missing`);
      continue;
    }
    const roles = doc.roles ?? DECIDED_ROLES[id];
    if (roles) t.strictSame(found.op['x-roles'], roles, `${id} x-roles`);
    else t.notOk('x-roles' in found.op, `${id} has no x-roles (the document gives no Roles line)`);
  }
});

t.test('401 is declared where the document declares it, and not on the open operation', async (t) => {
  for (const [id, doc] of Object.entries(OPERATIONS)) {
    const responses = opById.get(id)?.op.responses ?? {};
    if (doc.declares401) t.ok('401' in responses, `${id} declares 401`);
    if (id === UNAUTHENTICATED) t.notOk('401' in responses, `${id} needs no credentials and declares no 401`);
  }
});

t.test('403 is declared only on DeleteResource and CreateResourceType', async (t) => {
  for (const o of ops) {
    const expected = STATUS_403_ONLY_ON.includes(o.operationId);
    t.equal('403' in (o.op.responses ?? {}), expected, `${o.operationId} ${expected ? 'declares' : 'does not declare'} 403`);
  }
});

t.test('404 is declared on DeleteTag', async (t) => {
  for (const id of STATUS_404_ON) t.ok('404' in (opById.get(id)?.op.responses ?? {}), `${id} declares 404`);
});

t.test('409 is declared on DeleteResource', async (t) => {
  for (const id of STATUS_409_ON) t.ok('409' in (opById.get(id)?.op.responses ?? {}), `${id} declares 409`);
});

t.test('every 4xx and default response uses the ErrorResponse schema (an object with a ResponseStatus)', async (t) => {
  const errorResponse = deref(pointer('#/components/schemas/ErrorResponse'));
  t.equal(errorResponse.type, 'object', 'ErrorResponse is an object');
  t.strictSame(Object.keys(errorResponse.properties ?? {}), ['ResponseStatus'], 'ErrorResponse carries a ResponseStatus');
  t.ok(isRequired(errorResponse, 'ResponseStatus'), 'ResponseStatus is required in ErrorResponse');
  const rs = deref(errorResponse.properties?.ResponseStatus);
  t.strictSame(fieldSetDiff(rs ?? {}, RESPONSE_OBJECTS.ResponseStatus!), { missing: [], extra: [] }, 'its ResponseStatus has the document\'s fields');
  for (const o of ops) {
    for (const [status, raw] of Object.entries((o.op.responses ?? {}) as Obj)) {
      if (!/^4(\d\d|XX)$/.test(status) && status !== 'default') continue;
      const response = deref(raw);
      const schema = response?.content?.['application/json']?.schema;
      t.ok(schema, `${o.operationId} ${status} has an application/json schema`);
      if (!schema) continue;
      t.equal(deref(schema), errorResponse, `${o.operationId} ${status} is ErrorResponse`);
    }
  }
});
