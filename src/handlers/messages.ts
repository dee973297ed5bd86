import { checkTemplate } from '../domain/messages.js';
import { refused } from '../domain/refusals.js';
import { messagesRepository, type MessageServiceRow, type MessageTemplateRow, type MessageTypeRow } from '../store/repositories/messages.js';
import { bool, code, opt, type Answer } from '../store/prepared.js';
import { unknownCompany } from './company.js';
import type { HandlersOf, Schemas } from './types.js';

export const toMessageType = (row: MessageTypeRow) =>
  ({
    Id: row.id, Name: row.name, Description: opt(row.description),
    MaxCharacters: row.max_characters, DefaultText: opt(row.default_text), SendMethodId: code(row.send_method_id),
  } satisfies Answer<Schemas['MessageTypeQueryResponse']>);

/** Row → MessageTemplatesQueryResponse; `services` empty means valid for all services. */
export const toMessageTemplate = (
  row: MessageTemplateRow,
  type: MessageTypeRow,
  services: MessageServiceRow[],
) =>
  ({
    Id: row.id,
    Name: row.name,
    Title: row.title,
    Body: row.body,
    Sender: opt(row.sender),
    Default: bool(row.is_default),
    MessageType: toMessageType(type),
    Language: opt(row.language),
    Services: services.map((s) => ({ Id: s.id, Name: s.name, ImageUrl: opt(s.image_url) } satisfies Answer<Schemas['MessageServices']>)),
  } satisfies Answer<Schemas['MessageTemplatesQueryResponse']>);

export const messageHandlers: HandlersOf<'CreateMessageTemplate'> = {
  /**
   * Every rule is checked (one read) before the writes, so a refused request changes
   * nothing. Name, Title and Body are stored as sent; a blank Sender is no sender;
   * Language left out stays absent; a new template is never the Default.
   */
  async CreateMessageTemplate({ body, companyId: company, store }) {
    const repository = messagesRepository(store);
    const { companyExists, type, services: owned } = await repository.context(company, body.TypeId, body.Services ?? []);
    if (!companyExists) throw unknownCompany(company);
    const rule = type && { id: type.id, maxCharacters: type.max_characters, sendMethodId: type.send_method_id };
    const checked = checkTemplate(body, rule, new Set(owned.map((s) => s.id)));
    // An unknown TypeId is one of the errors.
    if (checked.errors.length > 0 || !type) throw refused(checked.errors);

    const row = await repository.create(
      {
        company_id: company,
        type_id: type.id,
        name: body.Name,
        title: body.Title,
        body: body.Body,
        sender: checked.sender ?? null,
        language: body.Language ?? null,
        is_default: 0,
        created: new Date().toISOString(),
      },
      checked.serviceIds,
    );
    // Answered in the order the request listed them (duplicates collapsed).
    const byId = new Map(owned.map((s) => [s.id, s]));
    return toMessageTemplate(row, type, checked.serviceIds.map((id) => byId.get(id)!));
  },
};
