// Every operation through the client swagger-typescript-api generated at its default
// options into ./swagger-typescript-api/Api.ts (see clients.test.ts, which compiles this
// file with tsc --strict and runs it). The typed reads prove the generated types: a wrong
// field, type or enum fails to compile. This generator sends no deepObject maps, so Meta
// goes as the one JSV text the contract also takes, and its enums are TypeScript enums, into
// which the example's names are looked up. The requests are test/examples.ts's, which
// clients.test.ts copies beside this file.
import {
  Api, BookingStatusId, ChangeType, RebateCodeStatus, RebateCodeType, ResourceCategory, SendMethod, WebhookMessageStatus, Weekday, type HttpResponse,
} from './swagger-typescript-api/Api.js';
import { EXAMPLES as E } from './examples.js';
import type { Answer, Target } from './target.js';

export async function callEveryOperation(target: Target): Promise<Answer[]> {
  const api = new Api({ baseUrl: target.baseUrl, securityWorker: () => ({ headers: { Authorization: `Bearer ${target.token}` } }) });
  const meta = `{${Object.entries(target.meta).map(([key, value]) => `${key}:${value}`).join(',')}}`;
  const answers: Answer[] = [];
  const seen = (operationId: string, method: string, response: HttpResponse<unknown, unknown>) =>
    answers.push({
      operationId,
      method,
      url: response.url,
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      data: response.data,
    });

  const resourceExample = E.DeleteResource.deactivated;
  const resource = await api.resource.deleteResource(resourceExample.path.Id, resourceExample.query);
  const inactive: boolean = resource.data.Active === false;
  const isObject: boolean = resource.data.ResourceCategory === ResourceCategory.Object;
  const booked: boolean = resource.data.Bookings[0]?.StatusId === BookingStatusId.Booked;
  seen('DeleteResource', 'DELETE', resource);

  const created = await api.rebatecodes.createArticleRebateCode(E.CreateArticleRebateCode['new buyer'].body);
  const giftCard: boolean = created.data.RebateCodeTypeId === RebateCodeType.GiftCard;
  const activeCode: boolean = created.data.RebateCodeStatusId === RebateCodeStatus.Active;
  seen('CreateArticleRebateCode', 'POST', created);

  const found = await api.rebatecodes.getRebateCodeBySign(E.GetRebateCodeBySign.default.query);
  const monday: boolean = found.data.DaysOfWeek?.[0]?.Id === Weekday.Monday;
  seen('GetRebateCodeBySign', 'GET', found);

  const increase = E.CreateRebateCodeTransaction.increase.body;
  const transaction = await api.rebatecodes.createRebateCodeTransaction({ ...increase, ChangeType: ChangeType[increase.ChangeType] });
  const amount: number = transaction.data.RebateCodeTransactionItem.Amount;
  seen('CreateRebateCodeTransaction', 'POST', transaction);

  const fieldExample = E.DeleteCustomField.default;
  const field = await api.customfields.deleteCustomField(fieldExample.path.Id, fieldExample.query);
  const fieldName: string = field.data.Name;
  seen('DeleteCustomField', 'DELETE', field);

  const printouts = await api.reports.bookingPrintoutQuery({ ...E.BookingPrintoutQuery.default.query, Meta: meta });
  const printoutName: string | undefined = printouts.data.Results[0]?.Name;
  seen('BookingPrintoutQuery', 'GET', printouts);

  const template = await api.messages.createMessageTemplate(E.CreateMessageTemplate.default.body);
  const byEmail: boolean = template.data.MessageType.SendMethodId === SendMethod.Email;
  seen('CreateMessageTemplate', 'POST', template);

  const tagExample = E.DeleteTag.default;
  const tag = await api.tags.deleteTag(tagExample.path.Id, tagExample.query);
  const tagActive: boolean = tag.data.Active;
  seen('DeleteTag', 'DELETE', tag);

  const resourceType = await api.resourcetypes.createResourceType(E.CreateResourceType.default.body);
  const members: number = resourceType.data.Resources.length;
  seen('CreateResourceType', 'POST', resourceType);

  const methods = await api.billing.billingMethodQuery({ ...E.BillingMethodQuery.default.query, Meta: meta });
  const countries: string[] | undefined = methods.data.Results[0]?.Countries;
  seen('BillingMethodQuery', 'GET', methods);

  const categories = await api.categories.categoryQuery({ ...E.CategoryQuery.default.query, Meta: meta });
  const total: number = categories.data.Total;
  seen('CategoryQuery', 'GET', categories);

  const usage = await api.assistant.getMcpUsage(E.GetMcpUsage.default.query);
  const used: number = usage.data.TokensUsed;
  const remaining: number = usage.data.TokensRemaining;
  seen('GetMcpUsage', 'GET', usage);

  const endpointExample = E.UpdateWebhookEndpoint.default;
  const endpoint = await api.webhook.updateWebhookEndpoint(endpointExample.path.Id, endpointExample.query, endpointExample.body);
  const secret: string = endpoint.data.Secret;
  seen('UpdateWebhookEndpoint', 'PUT', endpoint);

  const messagesQuery = E.WebhookEndpointMessageQuery.default.query;
  const messages = await api.webhook.webhookEndpointMessageQuery(E.WebhookEndpointMessageQuery.default.path.Id, {
    ...messagesQuery, Status: WebhookMessageStatus[messagesQuery.Status],
  });
  const pending: number = messages.data.Total;
  seen('WebhookEndpointMessageQuery', 'GET', messages);

  const grants = await api.assistant.mcpGrantQuery(E.McpGrantQuery.default.query);
  const sub: string | undefined = grants.data.Results[0]?.Sub;
  seen('McpGrantQuery', 'GET', grants);

  const revoked = await api.assistant.deleteMcpGrant(target.grantId, { CompanyId: target.companyId });
  const tokens: number = revoked.data.TokensUsed;
  seen('DeleteMcpGrant', 'DELETE', revoked);

  return answers;
}
