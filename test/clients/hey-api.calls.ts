// Every operation through the client @hey-api/openapi-ts generated at its default options
// into ./hey-api (see clients.test.ts, which compiles this file with tsc --strict and runs it).
// The typed reads prove the generated types: a wrong field, type or enum fails to compile.
// The requests are test/examples.ts's, which clients.test.ts copies beside this file.
import { EXAMPLES as E } from './examples.js';
import { createClient, createConfig } from './hey-api/client/index.js';
import {
  billingMethodQuery, bookingPrintoutQuery, categoryQuery, createArticleRebateCode, createMessageTemplate,
  createRebateCodeTransaction, createResourceType, deleteCustomField, deleteMcpGrant, deleteResource, deleteTag, getMcpUsage,
  getRebateCodeBySign, mcpGrantQuery, updateWebhookEndpoint, webhookEndpointMessageQuery,
  type BookingStatusId, type RebateCodeStatus, type RebateCodeType, type ResourceCategory, type SendMethod, type Weekday,
} from './hey-api/index.js';
import type { Answer, Target } from './target.js';

export async function callEveryOperation(target: Target): Promise<Answer[]> {
  const client = createClient(createConfig({ baseUrl: target.baseUrl, auth: target.token }));
  const answers: Answer[] = [];
  const seen = (operationId: string, result: { data: unknown; request: Request; response: Response }) =>
    answers.push({
      operationId,
      method: result.request.method,
      url: result.request.url,
      status: result.response.status,
      contentType: result.response.headers.get('content-type') ?? '',
      data: result.data,
    });

  const resource = await deleteResource({ client, throwOnError: true, ...E.DeleteResource.deactivated });
  const active: boolean = resource.data.Active;
  const category: ResourceCategory | undefined = resource.data.ResourceCategory;
  const bookingStatus: BookingStatusId | undefined = resource.data.Bookings[0]?.StatusId;
  seen('DeleteResource', resource);

  const created = await createArticleRebateCode({ client, throwOnError: true, ...E.CreateArticleRebateCode['new buyer'] });
  const type: RebateCodeType = created.data.RebateCodeTypeId;
  const status: RebateCodeStatus = created.data.RebateCodeStatusId;
  seen('CreateArticleRebateCode', created);

  const found = await getRebateCodeBySign({ client, throwOnError: true, ...E.GetRebateCodeBySign.default });
  const weekday: Weekday | undefined = found.data.DaysOfWeek?.[0]?.Id;
  seen('GetRebateCodeBySign', found);

  const transaction = await createRebateCodeTransaction({ client, throwOnError: true, ...E.CreateRebateCodeTransaction.increase });
  const amount: number = transaction.data.RebateCodeTransactionItem.Amount;
  seen('CreateRebateCodeTransaction', transaction);

  const field = await deleteCustomField({ client, throwOnError: true, ...E.DeleteCustomField.default });
  const fieldName: string = field.data.Name;
  seen('DeleteCustomField', field);

  const printouts = await bookingPrintoutQuery({ client, throwOnError: true, query: { ...E.BookingPrintoutQuery.default.query, Meta: target.meta } });
  const printoutName: string | undefined = printouts.data.Results[0]?.Name;
  seen('BookingPrintoutQuery', printouts);

  const template = await createMessageTemplate({ client, throwOnError: true, ...E.CreateMessageTemplate.default });
  const sendMethod: SendMethod = template.data.MessageType.SendMethodId;
  seen('CreateMessageTemplate', template);

  const tag = await deleteTag({ client, throwOnError: true, ...E.DeleteTag.default });
  const tagActive: boolean = tag.data.Active;
  seen('DeleteTag', tag);

  const resourceType = await createResourceType({ client, throwOnError: true, ...E.CreateResourceType.default });
  const members: number = resourceType.data.Resources.length;
  seen('CreateResourceType', resourceType);

  const methods = await billingMethodQuery({ client, throwOnError: true, query: { ...E.BillingMethodQuery.default.query, Meta: target.meta } });
  const countries: string[] | undefined = methods.data.Results[0]?.Countries;
  seen('BillingMethodQuery', methods);

  const categories = await categoryQuery({ client, throwOnError: true, query: { ...E.CategoryQuery.default.query, Meta: target.meta } });
  const total: number = categories.data.Total;
  seen('CategoryQuery', categories);

  const usage = await getMcpUsage({ client, throwOnError: true, ...E.GetMcpUsage.default });
  const used: number = usage.data.TokensUsed;
  const remaining: number = usage.data.TokensRemaining;
  seen('GetMcpUsage', usage);

  const endpoint = await updateWebhookEndpoint({ client, throwOnError: true, ...E.UpdateWebhookEndpoint.default });
  const secret: string = endpoint.data.Secret;
  seen('UpdateWebhookEndpoint', endpoint);

  const messages = await webhookEndpointMessageQuery({ client, throwOnError: true, ...E.WebhookEndpointMessageQuery.default });
  const pending: number = messages.data.Total;
  seen('WebhookEndpointMessageQuery', messages);

  const grants = await mcpGrantQuery({ client, throwOnError: true, ...E.McpGrantQuery.default });
  const scopes: Array<'booking.read' | 'booking.write'> | undefined = grants.data.Results[0]?.Scopes;
  seen('McpGrantQuery', grants);

  const revoked = await deleteMcpGrant({ client, throwOnError: true, path: { Id: target.grantId }, query: { CompanyId: target.companyId } });
  const tokens: number = revoked.data.TokensUsed;
  seen('DeleteMcpGrant', revoked);

  return answers;
}
