// Every operation through the client orval generated at its default options (axios
// functions) into ./orval/api.ts (see clients.test.ts, which compiles this file with tsc
// --strict and runs it). The typed reads prove the generated types: a wrong field, type or
// enum fails to compile. The requests are test/examples.ts's, which clients.test.ts copies
// beside this file.
import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import {
  BookingStatusId, RebateCodeStatus, RebateCodeType, ResourceCategory, SendMethod, Weekday,
  billingMethodQuery, bookingPrintoutQuery, categoryQuery, createArticleRebateCode, createMessageTemplate,
  createRebateCodeTransaction, createResourceType, deleteCustomField, deleteMcpGrant, deleteResource, deleteTag, getMcpUsage,
  getRebateCodeBySign, mcpGrantQuery, updateWebhookEndpoint, webhookEndpointMessageQuery,
} from './orval/api.js';
import { EXAMPLES as E } from './examples.js';
import type { Answer, Target } from './target.js';

export async function callEveryOperation(target: Target): Promise<Answer[]> {
  const options: AxiosRequestConfig = { baseURL: target.baseUrl, headers: { Authorization: `Bearer ${target.token}` } };
  const answers: Answer[] = [];
  const seen = (operationId: string, response: AxiosResponse) =>
    answers.push({
      operationId,
      method: String(response.config.method).toUpperCase(),
      url: axios.getUri(response.config),
      status: response.status,
      contentType: String(response.headers['content-type'] ?? ''),
      data: response.data,
    });

  const resourceExample = E.DeleteResource.deactivated;
  const resource = await deleteResource(resourceExample.path.Id, resourceExample.query, options);
  const inactive: boolean = resource.data.Active === false;
  const isObject: boolean = resource.data.ResourceCategory === ResourceCategory.Object;
  const booked: boolean = resource.data.Bookings[0]?.StatusId === BookingStatusId.Booked;
  seen('DeleteResource', resource);

  const created = await createArticleRebateCode(E.CreateArticleRebateCode['new buyer'].body, undefined, options);
  const giftCard: boolean = created.data.RebateCodeTypeId === RebateCodeType.GiftCard;
  const activeCode: boolean = created.data.RebateCodeStatusId === RebateCodeStatus.Active;
  seen('CreateArticleRebateCode', created);

  const found = await getRebateCodeBySign(E.GetRebateCodeBySign.default.query, options);
  const monday: boolean = found.data.DaysOfWeek?.[0]?.Id === Weekday.Monday;
  seen('GetRebateCodeBySign', found);

  const transaction = await createRebateCodeTransaction(E.CreateRebateCodeTransaction.increase.body, undefined, options);
  const amount: number = transaction.data.RebateCodeTransactionItem.Amount;
  seen('CreateRebateCodeTransaction', transaction);

  const fieldExample = E.DeleteCustomField.default;
  const field = await deleteCustomField(fieldExample.path.Id, fieldExample.query, options);
  const fieldName: string = field.data.Name;
  seen('DeleteCustomField', field);

  const printouts = await bookingPrintoutQuery({ ...E.BookingPrintoutQuery.default.query, Meta: target.meta }, options);
  const printoutName: string | undefined = printouts.data.Results[0]?.Name;
  seen('BookingPrintoutQuery', printouts);

  const template = await createMessageTemplate(E.CreateMessageTemplate.default.body, undefined, options);
  const byEmail: boolean = template.data.MessageType.SendMethodId === SendMethod.Email;
  seen('CreateMessageTemplate', template);

  const tagExample = E.DeleteTag.default;
  const tag = await deleteTag(tagExample.path.Id, tagExample.query, options);
  const tagActive: boolean = tag.data.Active;
  seen('DeleteTag', tag);

  const resourceType = await createResourceType(E.CreateResourceType.default.body, undefined, options);
  const members: number = resourceType.data.Resources.length;
  seen('CreateResourceType', resourceType);

  const methods = await billingMethodQuery({ ...E.BillingMethodQuery.default.query, Meta: target.meta }, options);
  const countries: string[] | undefined = methods.data.Results[0]?.Countries;
  seen('BillingMethodQuery', methods);

  const categories = await categoryQuery({ ...E.CategoryQuery.default.query, Meta: target.meta }, options);
  const total: number = categories.data.Total;
  seen('CategoryQuery', categories);

  const usage = await getMcpUsage(E.GetMcpUsage.default.query, options);
  const used: number = usage.data.TokensUsed;
  const remaining: number = usage.data.TokensRemaining;
  seen('GetMcpUsage', usage);

  const endpointExample = E.UpdateWebhookEndpoint.default;
  const endpoint = await updateWebhookEndpoint(endpointExample.path.Id, endpointExample.body, endpointExample.query, options);
  const secret: string = endpoint.data.Secret;
  seen('UpdateWebhookEndpoint', endpoint);

  const messagesExample = E.WebhookEndpointMessageQuery.default;
  const messages = await webhookEndpointMessageQuery(messagesExample.path.Id, messagesExample.query, options);
  const pending: number = messages.data.Total;
  seen('WebhookEndpointMessageQuery', messages);

  const grants = await mcpGrantQuery(E.McpGrantQuery.default.query, options);
  const clientName: string | undefined = grants.data.Results[0]?.ClientName;
  seen('McpGrantQuery', grants);

  const revoked = await deleteMcpGrant(target.grantId, { CompanyId: target.companyId }, options);
  const tokens: number = revoked.data.TokensUsed;
  seen('DeleteMcpGrant', revoked);

  return answers;
}
