import { checkTemplate, normalizeSender, type MessageTypeRule } from '../../domain/messages.js';
import { checkUrlShape, uniqueEventTypes } from '../../domain/webhooks.js';
import { checkSecret } from '../../webhooks/secret.js';
import { collection, columns, entity, flag, insertRows, insertWithId, refsTo, refTo } from '../collection.js';
import { dateTime, fromContract, guid, idList, nonNegative, object, positive } from '../schema.js';
import { service } from './people.js';
import { messageType, messageTypes } from './reference.js';

/** Booking printouts, message templates, webhook endpoints and MCP usage records. */

const printout = entity({ label: 'printout', table: 'printouts', owned: true });
const messageTemplate = entity({ label: 'message template', table: 'message_templates', owned: true });
const webhookEndpoint = entity({ label: 'webhook endpoint', table: 'webhook_endpoints', owned: true, perCompany: { what: 'id' } });

const CELLS = [
  'HeaderLeftCell', 'HeaderMiddleCell', 'HeaderRightCell', 'BodyCell', 'FooterLeftCell', 'FooterMiddleCell', 'FooterRightCell',
] as const;
const printoutFields = fromContract('PrintoutQueryResponse', ['Id', 'Name', ...CELLS]);

export const printouts = collection({
  entity: printout,
  schema: object(
    { CompanyId: guid, ...printoutFields, Id: positive(printoutFields.Id) },
    { required: ['CompanyId', 'Name'], filled: ['Name'] },
  ),
  async write(db, items) {
    for (const p of items) await insertWithId(db, 'printouts', columns(p, ['CompanyId', 'Name', ...CELLS]), p.Id);
  },
});

const templateFields = {
  ...fromContract('MessageTemplatesQueryResponse', ['Id', 'Default']),
  ...fromContract('CreateMessageTemplate', ['TypeId', 'Name', 'Title', 'Body', 'Sender', 'Language']),
};

export const messageTemplates = collection({
  entity: messageTemplate,
  schema: object(
    { CompanyId: guid, ...templateFields, Id: positive(templateFields.Id), ServiceIds: idList, Created: dateTime },
    { required: ['CompanyId', 'TypeId', 'Name', 'Title', 'Body'] },
  ),
  refs: (m) => [...refTo(messageType, m.TypeId, 'TypeId', null), ...refsTo(service, m.ServiceIds, 'ServiceIds', m.CompanyId)],
  /** The message types the templates name, from the file or the store. */
  async context(db, items, file) {
    const rule = (id: number, maxCharacters: number, sendMethodId: number): [number, MessageTypeRule] => [id, { id, maxCharacters, sendMethodId }];
    const types = new Map(file.of(messageTypes).map((t) => rule(t.Id, t.MaxCharacters, t.SendMethodId)));
    const stored = [...new Set(items.map((m) => m.TypeId))].filter((typeId) => !types.has(typeId));
    if (stored.length > 0) {
      const rows = await db.selectFrom('message_types').select(['id', 'max_characters', 'send_method_id']).where('id', 'in', stored).execute();
      for (const row of rows) types.set(...rule(row.id, row.max_characters, row.send_method_id));
    }
    return types;
  },
  // A TypeId that names no type, and the services, are checked as references.
  check(m, types) {
    const type = types.get(m.TypeId);
    return type ? checkTemplate({ ...m, Sender: m.Sender ?? undefined, Services: null }, type, new Set()).errors : [];
  },
  async write(db, items, { now }) {
    for (const m of items) {
      const row = {
        ...columns(m, ['CompanyId', 'TypeId', 'Name', 'Title', 'Body', 'Language']),
        sender: normalizeSender(m.Sender ?? undefined) ?? null,
        is_default: flag(m.Default, 0),
        created: m.Created ?? now,
      };
      const templateId = await insertWithId(db, 'message_templates', row, m.Id);
      await insertRows(db, 'message_template_services', (m.ServiceIds ?? []).map((service_id) => ({ message_template_id: templateId, service_id })));
    }
  },
});

const hookFields = {
  ...fromContract('WebhookEndpoint', ['Id', 'Secret']),
  ...fromContract('UpdateWebhookEndpoint', ['Url', 'EventTypes', 'Description', 'Disabled']),
};

export const webhookEndpoints = collection({
  entity: webhookEndpoint,
  schema: object(
    { CompanyId: guid, ...hookFields, Created: dateTime, Updated: dateTime },
    { required: ['CompanyId', 'Id', 'Url', 'EventTypes'], filled: ['Id', 'Secret'] },
  ),
  // The save-time address policy is left out: data files name reserved `*.example` hosts.
  check: (w) => [...checkUrlShape(w.Url), ...(w.Secret == null ? [] : checkSecret(w.Secret))],
  async write(db, items, { now, newWebhookSecret }) {
    await insertRows(db, 'webhook_endpoints', items.map((w) => ({
      ...columns(w, ['CompanyId', 'Id', 'Url', 'Description']),
      event_types: JSON.stringify(uniqueEventTypes(w.EventTypes)),
      disabled: flag(w.Disabled, 0),
      secret: w.Secret ?? newWebhookSecret(),
      created: w.Created ?? now,
      updated: w.Updated ?? w.Created ?? now,
    })));
  },
});

export const mcpUsage = collection({
  schema: object(
    { CompanyId: guid, TokensUsed: nonNegative(fromContract('AiChatUsageResponse', ['TokensUsed']).TokensUsed), At: dateTime },
    { required: ['CompanyId', 'TokensUsed', 'At'] },
  ),
  async write(db, items) {
    await insertRows(db, 'mcp_usage', items.map((u) => columns(u, ['CompanyId', 'TokensUsed', 'At'])));
  },
});
