// Every operation through the client orval generated at its default options (axios
// functions) into ./orval/api.ts (see clients.test.ts, which compiles this file with tsc
// --strict and runs it). The typed reads prove the generated types: a wrong field, type or
// enum fails to compile.
import axios, { type AxiosRequestConfig, type AxiosResponse } from 'axios';
import {
  BookingStatusId, RebateCodeStatus, RebateCodeType, ResourceCategory, SendMethod, Weekday,
  billingMethodQuery, bookingPrintoutQuery, categoryQuery, createArticleRebateCode, createMessageTemplate,
  createRebateCodeTransaction, createResourceType, deleteCustomField, deleteResource, deleteTag, getMcpUsage,
  getRebateCodeBySign, updateWebhookEndpoint, webhookEndpointMessageQuery,
} from './orval/api.js';
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
  const CompanyId = target.companyId;

  const resource = await deleteResource(101, { CompanyId, Force: true }, options);
  const inactive: boolean = resource.data.Active === false;
  const isObject: boolean = resource.data.ResourceCategory === ResourceCategory.Object;
  const booked: boolean = resource.data.Bookings[0]?.StatusId === BookingStatusId.Booked;
  seen('DeleteResource', resource);

  const created = await createArticleRebateCode(
    { ArticleId: 103, Customer: { Firstname: 'Lisa', Email: 'lisa@example.com' }, Receiver: { Firstname: 'Per', ReceiverMessage: 'Enjoy!' } },
    undefined,
    options,
  );
  const giftCard: boolean = created.data.RebateCodeTypeId === RebateCodeType.GiftCard;
  const activeCode: boolean = created.data.RebateCodeStatusId === RebateCodeStatus.Active;
  seen('CreateArticleRebateCode', created);

  const found = await getRebateCodeBySign(
    { CompanyId, RebateCodeSign: 'VALUE1000', ServiceId: 101, IncludeConnectedServices: true, IncludeConnectedDaysOfWeek: true },
    options,
  );
  const monday: boolean = found.data.DaysOfWeek?.[0]?.Id === Weekday.Monday;
  seen('GetRebateCodeBySign', found);

  const transaction = await createRebateCodeTransaction({ RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Increase' }, undefined, options);
  const amount: number = transaction.data.RebateCodeTransactionItem.Amount;
  seen('CreateRebateCodeTransaction', transaction);

  const field = await deleteCustomField(101, { CompanyId }, options);
  const fieldName: string = field.data.Name;
  seen('DeleteCustomField', field);

  const printouts = await bookingPrintoutQuery({ Skip: 0, Take: 2, OrderBy: 'Id', Meta: target.meta }, options);
  const printoutName: string | undefined = printouts.data.Results[0]?.Name;
  seen('BookingPrintoutQuery', printouts);

  const template = await createMessageTemplate(
    { TypeId: 1, Name: 'Generated', Title: 'Title', Body: 'Body', Language: 'en', Services: [101] },
    undefined,
    options,
  );
  const byEmail: boolean = template.data.MessageType.SendMethodId === SendMethod.Email;
  seen('CreateMessageTemplate', template);

  const tag = await deleteTag(101, { CompanyId }, options);
  const tagActive: boolean = tag.data.Active;
  seen('DeleteTag', tag);

  const resourceType = await createResourceType({ Name: 'Generated', Active: true, Resources: [{ Id: 102, Priority: 1 }] }, undefined, options);
  const members: number = resourceType.data.Resources.length;
  seen('CreateResourceType', resourceType);

  const methods = await billingMethodQuery({ CountryId: 'SE', Meta: target.meta }, options);
  const countries: string[] | undefined = methods.data.Results[0]?.Countries;
  seen('BillingMethodQuery', methods);

  const categories = await categoryQuery({ OrderByDesc: 'Id', Fields: 'Id,Name', Meta: target.meta }, options);
  const total: number = categories.data.Total;
  seen('CategoryQuery', categories);

  const usage = await getMcpUsage({ CompanyId }, options);
  const used: number = usage.data.TokensUsed;
  const remaining: number = usage.data.TokensRemaining;
  seen('GetMcpUsage', usage);

  const endpoint = await updateWebhookEndpoint(
    'wh_bookings',
    { Url: 'https://hooks.studionova.example/generated', EventTypes: ['booking.created'], Description: 'Generated client' },
    { CompanyId },
    options,
  );
  const secret: string = endpoint.data.Secret;
  seen('UpdateWebhookEndpoint', endpoint);

  const messages = await webhookEndpointMessageQuery('wh_bookings', { CompanyId, Status: 'Pending', Take: 10 }, options);
  const pending: number = messages.data.Total;
  seen('WebhookEndpointMessageQuery', messages);

  return answers;
}
