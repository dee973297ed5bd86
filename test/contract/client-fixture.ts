// Type-check-only fixture: proof that a generated client can use the contract.
//
// It is compiled (never run) by test/contract/client.test.ts and by `npm run typecheck`.
// Nothing here executes at import time: the calls live inside a function that nothing
// calls, and the client's `fetch` refuses to send anything, so even a mistaken call
// could never reach a server. It is not a test file (tap runs `*.test.ts` only).
//
// Every `// @ts-expect-error` line below must fail to compile; an unused directive is
// itself a compiler error, so the client test's "zero diagnostics" proves each one.

import createClient from 'openapi-fetch';
import type { paths } from '../../src/generated/openapi.js';
import { COMPANY_A as companyId } from '../fixtures.js';

export function typeCheckOnlyClient() {
  return createClient<paths, 'application/json'>({
    baseUrl: 'http://type-check-only.invalid',
    fetch: async () => {
      throw new Error('client-fixture.ts is type-checked only and must never send a request');
    },
  });
}

/** One fully typed call of each operation: the thirteen and the extensions. Never called. */
export async function callEveryOperation(): Promise<unknown[]> {
  const client = typeCheckOnlyClient();
  const seen: unknown[] = [];

  // DeleteResource DELETE /resource/{Id}
  {
    const { data, error } = await client.DELETE('/resource/{Id}', {
      params: { path: { Id: 12 }, query: { CompanyId: companyId, Force: true } },
    });
    const name: string | undefined = data?.Name;
    const status: 'Booked' | 'Unbooked' | 'Reserved' | 'Canceled' | 'AwaitingPayment' | 'AwaitingPaymentNoTimeLimit'
      | 'Payed' | 'AwaitingPaymentRequestFromAdmin' | 'AwaitingPaymentFromProvider' | 'Invoiced' | undefined =
      data?.Bookings[0]?.Status;
    const reminder: boolean | null | undefined = data?.SendEmailReminder;
    const errorCode: string | undefined = error?.ResponseStatus.ErrorCode;
    seen.push(name, status, reminder, errorCode);
  }

  // CreateArticleRebateCode POST /rebatecodes/fromarticle
  {
    const { data } = await client.POST('/rebatecodes/fromarticle', {
      body: {
        ArticleId: 5,
        CompanyId: null,
        Customer: { Firstname: 'Ada', Lastname: 'Lovelace', Email: 'ada@example.org', SubscribedToNewsletter: false },
        InvoiceAddress: { InvoiceCity: 'Stockholm', InvoiceCountryCode: 'SE' },
        Receiver: { CustomerId: null, Firstname: 'Grace', Email: 'grace@example.org', ReceiverMessage: 'Enjoy!' },
      },
    });
    const sign: string | undefined = data?.RebateCodeSign;
    const sitePath: string | undefined = data?.Company?.SitePath;
    seen.push(sign, sitePath);
  }

  // GetRebateCodeBySign GET /rebatecodes/getbysign
  {
    const { data } = await client.GET('/rebatecodes/getbysign', {
      params: {
        query: {
          CompanyId: companyId,
          RebateCodeSign: 'GIFT-7KQ2-MX4P',
          ServiceId: 3,
          Date: '2025-05-01T10:00:00Z',
          IncludeConnectedServices: true,
          IncludeConnectedDaysOfWeek: true,
          CustomerEmail: 'ada@example.org',
        },
      },
    });
    const remaining: number | null | undefined = data?.RemainingAmount;
    const fromTime: string | undefined = data?.FromTime;
    const day: string | undefined = data?.DaysOfWeek?.[0]?.DayOfWeek;
    seen.push(remaining, fromTime, day);
  }

  // CreateRebateCodeTransaction POST /rebatecodes/transactions
  {
    const { data } = await client.POST('/rebatecodes/transactions', {
      body: { CompanyId: companyId, RebateCodeId: 7, Amount: 100.5, Usage: 0, BookingId: null, ChangeType: 'Decrease' },
    });
    const amount: number | undefined = data?.RebateCodeTransactionItem.Amount;
    const usage: string | undefined = data?.RebateCodeTransactionItem.Usage;
    seen.push(amount, usage);
  }

  // DeleteCustomField DELETE /customfields/{Id}
  {
    const { data } = await client.DELETE('/customfields/{Id}', {
      params: { path: { Id: 4 }, query: { CompanyId: companyId } },
    });
    const value: string | undefined = data?.Values[0]?.Value;
    const mandatory: boolean | undefined = data?.IsMandatory;
    seen.push(value, mandatory);
  }

  // BookingPrintoutQuery GET /reports/booking/printout
  {
    const { data } = await client.GET('/reports/booking/printout', {
      params: {
        query: { CompanyId: companyId, Id: 2, Skip: 0, Take: 50, OrderBy: 'Name', Fields: 'Id,Name', Meta: { source: 'fixture' } },
      },
    });
    const header: string | undefined = data?.Results[0]?.HeaderLeftCell;
    const total: number | undefined = data?.Total;
    seen.push(header, total);
  }

  // CreateMessageTemplate POST /messages/templates
  {
    const { data } = await client.POST('/messages/templates', {
      body: { TypeId: 1, Name: 'Confirmation', Title: 'Your booking', Body: 'Welcome!', Sender: 'noreply@example.org', Language: 'sv', Services: [1, 2] },
    });
    const sendMethod: number | undefined = data?.MessageType.SendMethodId;
    const serviceName: string | undefined = data?.Services[0]?.Name;
    seen.push(sendMethod, serviceName);
  }

  // DeleteTag DELETE /tags/{Id}
  {
    const { data } = await client.DELETE('/tags/{Id}', { params: { path: { Id: 9 } } });
    const active: boolean | undefined = data?.Active;
    seen.push(active);
  }

  // CreateResourceType POST /resourcetypes
  {
    const { data } = await client.POST('/resourcetypes', {
      body: { Name: 'Rooms', Description: 'Meeting rooms', Resources: [{ Id: 1, Priority: 2 }, { Id: 3 }], Active: true },
    });
    const priority: number | undefined = data?.Resources[0]?.Priority;
    seen.push(priority);
  }

  // BillingMethodQuery GET /billing/methods
  {
    const { data } = await client.GET('/billing/methods', { params: { query: { CountryId: 'SE', Take: 10 } } });
    const countries: readonly string[] | undefined = data?.Results[0]?.Countries;
    seen.push(countries);
  }

  // CategoryQuery GET /categories (no credentials, no required parameter)
  {
    const { data } = await client.GET('/categories');
    const category: string | undefined = data?.Results[0]?.Name;
    seen.push(category);
  }

  // GetMcpUsage GET /assistant/mcp/usage
  {
    const { data } = await client.GET('/assistant/mcp/usage', { params: { query: { CompanyId: companyId } } });
    const remaining: number | undefined = data?.TokensRemaining;
    const withinBudget: boolean | undefined = data?.IsWithinBudget;
    seen.push(remaining, withinBudget);
  }

  // UpdateWebhookEndpoint PUT /webhook/endpoints/{Id}
  {
    const { data } = await client.PUT('/webhook/endpoints/{Id}', {
      params: { path: { Id: 'wh_1' }, query: { CompanyId: companyId } },
      body: { Url: 'https://example.org/hooks', EventTypes: ['booking.created'], Description: 'Bookings', Disabled: false },
    });
    const secret: string | undefined = data?.Secret;
    seen.push(secret);
  }

  // WebhookEndpointMessageQuery GET /webhook/endpoints/{Id}/messages
  {
    const { data } = await client.GET('/webhook/endpoints/{Id}/messages', {
      params: { path: { Id: 'wh_1' }, query: { CompanyId: companyId, Status: 'Pending', Take: 10 } },
    });
    const attempts: number | undefined = data?.Results[0]?.Attempts.length;
    seen.push(attempts);
  }

  // McpGrantQuery GET /assistant/mcp/grants
  {
    const { data } = await client.GET('/assistant/mcp/grants', { params: { query: { CompanyId: companyId, Take: 10 } } });
    const scopes: Array<'booking.read' | 'booking.write'> | undefined = data?.Results[0]?.Scopes;
    const clientName: string | undefined = data?.Results[0]?.ClientName;
    seen.push(scopes, clientName);
  }

  // DeleteMcpGrant DELETE /assistant/mcp/grants/{Id}
  {
    const { data } = await client.DELETE('/assistant/mcp/grants/{Id}', { params: { path: { Id: 'grant_1' }, query: { CompanyId: companyId } } });
    const tokens: number | undefined = data?.TokensUsed;
    seen.push(tokens);
  }

  return seen;
}

/** Calls that must not compile. Never called. */
export async function wrongCallsDoNotCompile(): Promise<void> {
  const client = typeCheckOnlyClient();

  // A missing required body field (CreateMessageTemplate needs Body).
  // @ts-expect-error Body is required
  await client.POST('/messages/templates', { body: { TypeId: 1, Name: 'Confirmation', Title: 'Your booking' } });

  // A wrong parameter type (DeleteResource's path Id is an integer).
  // @ts-expect-error Id must be a number
  await client.DELETE('/resource/{Id}', { params: { path: { Id: 'twelve' } } });

  // An unknown operation path.
  // @ts-expect-error no such path in the contract
  await client.GET('/resources/list', {});

  // A path that exists with another method only (DeleteTag is DELETE).
  // @ts-expect-error /tags/{Id} has no GET
  await client.GET('/tags/{Id}', { params: { path: { Id: 1 } } });

  // A missing required query parameter (GetRebateCodeBySign needs ServiceId).
  // @ts-expect-error ServiceId is required
  await client.GET('/rebatecodes/getbysign', { params: { query: { CompanyId: companyId, RebateCodeSign: 'X', IncludeConnectedServices: true } } });

  // A value outside an enum (ChangeType is Increase or Decrease).
  // @ts-expect-error ChangeType has no value Add
  await client.POST('/rebatecodes/transactions', { body: { RebateCodeId: 7, Amount: 1, Usage: 0, ChangeType: 'Add' } });

  // A response field the contract does not have.
  const { data } = await client.GET('/assistant/mcp/usage');
  // @ts-expect-error AiChatUsageResponse has no TokensLeft
  void data?.TokensLeft;
}
