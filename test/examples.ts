// Example requests of every operation, on the demo data (src/store/demo-data/ids.ts says what
// each row shows), written once for everything that calls the operations: the generated
// clients (test/clients/*.calls.ts), the statement and compile counts (SUCCESSFUL_CALLS of
// operation-calls.ts), `npm run soak` and `npm run bench`, which vary them per request.
// `exampleRequest` (operation-calls.ts) turns one into a method and URL for HTTP callers.
// An operation's examples are listed in an order in which each answers as it states, one
// after another on one demo store; test/contract/examples.test.ts checks that, and that each
// sends only what its operation declares.
//
// It imports nothing: test/clients/clients.test.ts copies it beside the generated clients,
// which compile it with their call files.

type Value = string | number | boolean;

/** One request of an operation, as structured values. */
export interface Example {
  /** the variables of the operation's path template */
  readonly path?: Readonly<Record<string, Value>>;
  /** the query string, in this order; an undefined value is not sent */
  readonly query?: Readonly<Record<string, Value | undefined>>;
  /** the JSON body */
  readonly body?: object;
  /** the caller's roles when not company A's write role ([]: none of them), null for no credentials */
  readonly as?: readonly string[] | null;
  /** the caller's company when not company A */
  readonly company?: string;
  /** the answer's status when it is not 200: the example is a refusal */
  readonly status?: number;
}

/** The demo data's companies (DEMO_COMPANY_A and DEMO_COMPANY_B). */
export const DEMO = { A: '00000000-0000-4000-8000-00000000000a', B: '00000000-0000-4000-8000-00000000000b' } as const;
const { A, B } = DEMO;

const catalogue = {
  DeleteResource: {
    /** 103 has no bookings. */
    deleted: { path: { Id: 103 } },
    /** 101 has Booked and Payed bookings: Force keeps it, inactive. */
    deactivated: { path: { Id: 101 }, query: { CompanyId: A, Force: true } },
    blocked: { path: { Id: 101 }, query: { CompanyId: A }, status: 409 },
    'of company B': { path: { Id: 201 }, status: 404 },
  },
  CreateArticleRebateCode: {
    /** Gift card article 103, bought by a new customer for a friend. */
    'new buyer': {
      body: {
        ArticleId: 103,
        Customer: { Firstname: 'Lisa', Lastname: 'Berg', Email: 'lisa.berg@example.com' },
        Receiver: { Firstname: 'Per', Email: 'per@example.com', ReceiverMessage: 'Enjoy!' },
      },
    },
    /** Value card article 102, no buyer named. */
    'no buyer': { body: { ArticleId: 102 } },
    'not convertible': { body: { ArticleId: 104, Customer: { Email: 'x@example.org' } }, status: 400 },
  },
  GetRebateCodeBySign: {
    /** The value card VALUE1000. */
    default: { query: { CompanyId: A, RebateCodeSign: 'VALUE1000', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true } },
    'with customers': {
      query: {
        CompanyId: A, RebateCodeSign: 'VALUE1000', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true,
        IncludeConnectedCustomers: true,
      },
    },
    /** VIP25 is Anna's, once per customer. */
    'per-customer count': {
      query: {
        CompanyId: A, RebateCodeSign: 'VIP25', ServiceId: 101, IncludeConnectedServices: false, CustomerEmail: 'anna.svensson@example.com',
        IncludeConnectedCustomers: true,
      },
    },
    /** A caller without an administrator role sees the public fields. */
    'public view': {
      query: { CompanyId: A, RebateCodeSign: 'GIFT500', ServiceId: 101, IncludeConnectedServices: true, CustomerEmail: 'anna.svensson@example.com' },
      as: [],
    },
    /** MASSAGE100 is only for the massage service. */
    'for one service': { query: { CompanyId: A, RebateCodeSign: 'MASSAGE100', ServiceId: 102, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true } },
    inactive: { query: { CompanyId: A, RebateCodeSign: 'PAUSED10', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true }, status: 400 },
    'unknown sign': { query: { CompanyId: A, RebateCodeSign: 'NOPE', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true }, status: 404 },
  },
  CreateRebateCodeTransaction: {
    /** Take 10 from the gift card GIFT500 (id 101). */
    default: { body: { RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Decrease' } },
    increase: { body: { RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Increase' } },
    'with a booking': { body: { RebateCodeId: 101, Amount: 5, Usage: 0, ChangeType: 'Decrease', BookingId: 101 } },
    'beyond the balance': { body: { RebateCodeId: 103, Amount: 100000000, Usage: 0, ChangeType: 'Decrease' }, status: 400 },
  },
  DeleteCustomField: {
    /** The drop-down 101, with its values and services. */
    default: { path: { Id: 101 }, query: { CompanyId: A } },
    'of company B': { path: { Id: 201 }, status: 404 },
  },
  BookingPrintoutQuery: {
    default: { query: { Take: 10, Skip: 0, OrderBy: 'Name' } },
    'first page': { query: { Take: 5 } },
    CSV: { query: { Take: 5, format: 'csv' } },
    'past the end': { query: { Skip: 50 } },
    'unknown order': { query: { OrderBy: 'Nope' }, status: 400 },
  },
  CreateMessageTemplate: {
    /** An e-mail confirmation (type 1) for two services. */
    default: {
      body: {
        TypeId: 1, Name: 'Booking confirmation', Title: 'Thank you for your booking',
        Body: 'Hi {Firstname},\n\nWe look forward to seeing you {From}.\n\nWelcome!', Sender: 'booking@example.com', Language: 'en',
        Services: [101, 102],
      },
    },
    'for all services': { body: { TypeId: 1, Name: 'Thanks', Title: 'Thanks', Body: 'Thank you' } },
    /** An SMS (type 2) is at most 160 characters and has no Sender. */
    'SMS too long': { body: { TypeId: 2, Name: 'SMS', Title: 'x', Body: 'y'.repeat(200), Sender: 'a@b.se' }, status: 400 },
  },
  DeleteTag: {
    /** A soft delete: the tag is deactivated, so it succeeds again. */
    default: { path: { Id: 101 }, query: { CompanyId: A } },
    'of company B': { path: { Id: 201 }, status: 404 },
  },
  CreateResourceType: {
    default: { body: { Name: 'Stylists', Active: true, Resources: [{ Id: 102, Priority: 1 }, { Id: 104 }] } },
    'no resources': { body: { Name: 'Rooms' } },
    'unknown and repeated resources': { body: { Name: 'Bad', Resources: [{ Id: 201 }, { Id: 101 }, { Id: 101 }] }, status: 400 },
  },
  BillingMethodQuery: {
    default: { query: { CountryId: 'SE' } },
    'by name, descending': { query: { CountryId: 'SE', OrderByDesc: 'Name' } },
    'negative Take': { query: { Take: -1 }, status: 400 },
  },
  CategoryQuery: {
    /** CategoryQuery needs no credentials. */
    default: { query: { Take: 5, Fields: 'Id,Name' }, as: null },
    all: { as: null },
    'as XML': { query: { format: 'xml' }, as: null, status: 406 },
  },
  GetMcpUsage: {
    default: { query: { CompanyId: A } },
    /** A caller of company B names company A. */
    "another company's": { query: { CompanyId: A }, company: B, status: 401 },
  },
  UpdateWebhookEndpoint: {
    default: {
      path: { Id: 'wh_bookings' },
      query: { CompanyId: A },
      body: { Url: 'https://hooks.studionova.example/pos', EventTypes: ['booking.created', 'booking.canceled'], Description: 'Booking events to the POS' },
    },
    /** The cloud metadata address: not public. */
    'private address': { path: { Id: 'wh_bookings' }, query: { CompanyId: A }, body: { Url: 'http://169.254.169.254/latest', EventTypes: ['x'] }, status: 400 },
  },
  WebhookEndpointMessageQuery: {
    default: { path: { Id: 'wh_bookings' }, query: { CompanyId: A, Status: 'Pending', Take: 10 } },
  },
  McpGrantQuery: {
    /** The demo data holds no grant (assistants make them by signing in): an empty page. */
    default: { query: { CompanyId: A, Take: 10 } },
    "another company's": { query: { CompanyId: A }, company: B, status: 403 },
  },
  DeleteMcpGrant: {
    /** A grant the company does not hold; test/clients revokes one it made. */
    unknown: { path: { Id: 'grant-unknown' }, query: { CompanyId: A }, status: 404 },
    /** Revoking needs the write role. */
    'read role': { path: { Id: 'grant-unknown' }, as: ['bookingsupplier-administrator-read'], status: 403 },
  },
} as const satisfies Record<string, Readonly<Record<string, Example>>>;

/** Deeply writable: generated clients type lists as arrays, not readonly ones. */
type Writable<T> = T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;

/** The examples of each operation, by name; `default` where one stands for the operation. */
export const EXAMPLES = catalogue as Writable<typeof catalogue>;

export type ExampleOperation = keyof typeof EXAMPLES;
