import { collection, flag, insertRows, insertWithId, refsTo, refTo } from '../collection.js';
import type { Issue } from '../fields.js';
import { bool, dateTime, guid, id, ids, int, list, str, url } from '../fields.js';

/** Booking printouts, message templates, webhook endpoints and MCP usage records. */

export const printouts = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    Name: str({ nonEmpty: true }).req(),
    HeaderLeftCell: str(),
    HeaderMiddleCell: str(),
    HeaderRightCell: str(),
    BodyCell: str(),
    FooterLeftCell: str(),
    FooterMiddleCell: str(),
    FooterRightCell: str(),
  },
  keys: (p) => (p.Id === null ? [] : [{ kind: 'printout', key: p.Id, path: ['Id'] }]),
  async write(db, items) {
    for (const p of items) {
      await insertWithId(db, 'printouts', {
        company_id: p.CompanyId,
        name: p.Name,
        header_left_cell: p.HeaderLeftCell,
        header_middle_cell: p.HeaderMiddleCell,
        header_right_cell: p.HeaderRightCell,
        body_cell: p.BodyCell,
        footer_left_cell: p.FooterLeftCell,
        footer_middle_cell: p.FooterMiddleCell,
        footer_right_cell: p.FooterRightCell,
      }, p.Id);
    }
  },
});

const EMAIL = 1;
const SMS = 2;

export const messageTemplates = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    TypeId: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Title: str({ nonEmpty: true }).req(),
    Body: str({ nonEmpty: true }).req(),
    Sender: str(),
    Language: str({ oneOf: ['sv', 'en'] }),
    Default: bool(),
    ServiceIds: ids(),
    Created: dateTime(),
  },
  keys: (m) => (m.Id === null ? [] : [{ kind: 'messageTemplate', key: m.Id, path: ['Id'] }]),
  refs: (m) => [
    ...refTo('messageType', m.TypeId, 'TypeId', null),
    ...refsTo('service', m.ServiceIds, 'ServiceIds', m.CompanyId),
  ],
  check(m, ctx) {
    const type = ctx.messageType(m.TypeId);
    if (!type) return []; // the missing type is reported as a reference
    const issues: Issue[] = [];
    if (m.Body.length > type.maxCharacters) {
      issues.push({ path: ['Body'], message: `must be at most ${type.maxCharacters} characters for message type ${m.TypeId}` });
    }
    if (m.Sender !== null && type.sendMethodId === SMS) {
      issues.push({ path: ['Sender'], message: 'cannot be set for an SMS message type' });
    }
    if (m.Sender !== null && type.sendMethodId === EMAIL && !/^[^@\s]+@[^@\s]+$/.test(m.Sender)) {
      issues.push({ path: ['Sender'], message: 'must be an e-mail address' });
    }
    return issues;
  },
  async write(db, items, { now }) {
    for (const m of items) {
      const templateId = await insertWithId(db, 'message_templates', {
        company_id: m.CompanyId,
        type_id: m.TypeId,
        name: m.Name,
        title: m.Title,
        body: m.Body,
        sender: m.Sender,
        language: m.Language,
        is_default: flag(m.Default, 0),
        created: m.Created ?? now,
      }, m.Id);
      await insertRows(db, 'message_template_services', (m.ServiceIds ?? []).map((serviceId) => ({
        message_template_id: templateId,
        service_id: serviceId,
      })));
    }
  },
});

export const webhookEndpoints = collection({
  shape: {
    CompanyId: guid().req(),
    Id: str({ nonEmpty: true }).req(),
    Url: url().req(),
    Description: str(),
    EventTypes: list(str({ nonEmpty: true }), { unique: true, minItems: 1 }).req(),
    Disabled: bool(),
    Secret: str({ nonEmpty: true }),
    Created: dateTime(),
    Updated: dateTime(),
  },
  // Endpoint ids are unique within their company only.
  keys: (w) => [{ kind: 'webhookEndpoint', key: `${w.CompanyId}/${w.Id}`, path: ['Id'] }],
  async write(db, items, { now, newWebhookSecret }) {
    await insertRows(db, 'webhook_endpoints', items.map((w) => ({
      company_id: w.CompanyId,
      id: w.Id,
      url: w.Url,
      description: w.Description,
      event_types: JSON.stringify(w.EventTypes),
      disabled: flag(w.Disabled, 0),
      secret: w.Secret ?? newWebhookSecret(),
      created: w.Created ?? now,
      updated: w.Updated ?? w.Created ?? now,
    })));
  },
});

export const mcpUsage = collection({
  shape: {
    CompanyId: guid().req(),
    TokensUsed: int({ min: 0 }).req(),
    At: dateTime().req(),
  },
  async write(db, items) {
    await insertRows(db, 'mcp_usage', items.map((u) => ({
      company_id: u.CompanyId,
      tokens_used: u.TokensUsed,
      at: u.At,
    })));
  },
});
