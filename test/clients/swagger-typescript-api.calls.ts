// Every operation through the client swagger-typescript-api generated at its default
// options into ./swagger-typescript-api/Api.ts (see clients.test.ts, which compiles this
// file with tsc --strict and runs it). The typed reads prove the generated types: a wrong
// field, type or enum fails to compile. This generator sends no deepObject maps, so Meta
// goes as the one JSV text the contract also takes.
import {
  Api, BookingStatusId, ChangeType, RebateCodeStatus, RebateCodeType, ResourceCategory, SendMethod, WebhookMessageStatus, Weekday, type HttpResponse,
} from './swagger-typescript-api/Api.js';
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
  const CompanyId = target.companyId;

  const resource = await api.resource.deleteResource(101, { CompanyId, Force: true });
  const inactive: boolean = resource.data.Active === false;
  const isObject: boolean = resource.data.ResourceCategory === ResourceCategory.Object;
  const booked: boolean = resource.data.Bookings[0]?.StatusId === BookingStatusId.Booked;
  seen('DeleteResource', 'DELETE', resource);

  const created = await api.rebatecodes.createArticleRebateCode({
    ArticleId: 103,
    Customer: { Firstname: 'Lisa', Email: 'lisa@example.com' },
    Receiver: { Firstname: 'Per', ReceiverMessage: 'Enjoy!' },
  });
  const giftCard: boolean = created.data.RebateCodeTypeId === RebateCodeType.GiftCard;
  const activeCode: boolean = created.data.RebateCodeStatusId === RebateCodeStatus.Active;
  seen('CreateArticleRebateCode', 'POST', created);

  const found = await api.rebatecodes.getRebateCodeBySign({
    CompanyId, RebateCodeSign: 'VALUE1000', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true,
  });
  const monday: boolean = found.data.DaysOfWeek?.[0]?.Id === Weekday.Monday;
  seen('GetRebateCodeBySign', 'GET', found);

  const transaction = await api.rebatecodes.createRebateCodeTransaction({ RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: ChangeType.Increase });
  const amount: number = transaction.data.RebateCodeTransactionItem.Amount;
  seen('CreateRebateCodeTransaction', 'POST', transaction);

  const field = await api.customfields.deleteCustomField(101, { CompanyId });
  const fieldName: string = field.data.Name;
  seen('DeleteCustomField', 'DELETE', field);

  const printouts = await api.reports.bookingPrintoutQuery({ Skip: 0, Take: 2, OrderBy: 'Id', Meta: meta });
  const printoutName: string | undefined = printouts.data.Results[0]?.Name;
  seen('BookingPrintoutQuery', 'GET', printouts);

  const template = await api.messages.createMessageTemplate({ TypeId: 1, Name: 'Generated', Title: 'Title', Body: 'Body', Language: 'en', Services: [101] });
  const byEmail: boolean = template.data.MessageType.SendMethodId === SendMethod.Email;
  seen('CreateMessageTemplate', 'POST', template);

  const tag = await api.tags.deleteTag(101, { CompanyId });
  const tagActive: boolean = tag.data.Active;
  seen('DeleteTag', 'DELETE', tag);

  const resourceType = await api.resourcetypes.createResourceType({ Name: 'Generated', Active: true, Resources: [{ Id: 102, Priority: 1 }] });
  const members: number = resourceType.data.Resources.length;
  seen('CreateResourceType', 'POST', resourceType);

  const methods = await api.billing.billingMethodQuery({ CountryId: 'SE', Meta: meta });
  const countries: string[] | undefined = methods.data.Results[0]?.Countries;
  seen('BillingMethodQuery', 'GET', methods);

  const categories = await api.categories.categoryQuery({ OrderByDesc: 'Id', Fields: 'Id,Name', Meta: meta });
  const total: number = categories.data.Total;
  seen('CategoryQuery', 'GET', categories);

  const usage = await api.assistant.getMcpUsage({ CompanyId });
  const used: number = usage.data.TokensUsed;
  const remaining: number = usage.data.TokensRemaining;
  seen('GetMcpUsage', 'GET', usage);

  const endpoint = await api.webhook.updateWebhookEndpoint(
    'wh_bookings',
    { CompanyId },
    { Url: 'https://hooks.studionova.example/generated', EventTypes: ['booking.created'], Description: 'Generated client' },
  );
  const secret: string = endpoint.data.Secret;
  seen('UpdateWebhookEndpoint', 'PUT', endpoint);

  const messages = await api.webhook.webhookEndpointMessageQuery('wh_bookings', { CompanyId, Status: WebhookMessageStatus.Pending, Take: 10 });
  const pending: number = messages.data.Total;
  seen('WebhookEndpointMessageQuery', 'GET', messages);

  return answers;
}
