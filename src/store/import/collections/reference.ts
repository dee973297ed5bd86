import { collection, flag, insertRows, refsTo } from '../collection.js';
import { bool, dateTime, guid, id, int, list, str } from '../fields.js';

/** Companies and the global reference data (categories, billing methods, message types). */

export const companies = collection({
  shape: {
    Id: guid().req(),
    Name: str({ nonEmpty: true }).req(),
    SitePath: str(),
    PaymentProviderId: int(),
    McpTokenLimit: int({ min: 0, max: 2147483647 }),
    CategoryIds: list(id(), { unique: true }),
    Created: dateTime(),
  },
  keys: (c) => [{ kind: 'company', key: c.Id, path: ['Id'] }],
  refs: (c) => refsTo('category', c.CategoryIds, 'CategoryIds', null),
  async write(db, items, { now }) {
    await insertRows(db, 'companies', items.map((c) => ({
      id: c.Id,
      name: c.Name,
      site_path: c.SitePath,
      payment_provider_id: c.PaymentProviderId,
      mcp_token_limit: c.McpTokenLimit,
      created: c.Created ?? now,
    })));
    await insertRows(db, 'company_categories', items.flatMap((c) =>
      (c.CategoryIds ?? []).map((categoryId) => ({ company_id: c.Id, category_id: categoryId })),
    ));
  },
});

/** `Beauty, nails & spa` → `beauty-nails-spa`: the default NormalizedName. */
function slug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const categories = collection({
  shape: {
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    NormalizedName: str(),
    Active: bool(),
  },
  keys: (c) => [{ kind: 'category', key: c.Id, path: ['Id'] }],
  async write(db, items) {
    await insertRows(db, 'categories', items.map((c) => ({
      id: c.Id,
      name: c.Name,
      normalized_name: c.NormalizedName ?? slug(c.Name),
      active: flag(c.Active, 1),
    })));
  },
});

export const billingMethods = collection({
  shape: {
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Description: str(),
    Countries: list(str({ nonEmpty: true }), { unique: true }),
  },
  keys: (b) => [{ kind: 'billingMethod', key: b.Id, path: ['Id'] }],
  async write(db, items) {
    await insertRows(db, 'billing_methods', items.map((b) => ({ id: b.Id, name: b.Name, description: b.Description })));
    await insertRows(db, 'billing_method_countries', items.flatMap((b) =>
      (b.Countries ?? []).map((country) => ({ billing_method_id: b.Id, country_id: country })),
    ));
  },
});

export const messageTypes = collection({
  shape: {
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Description: str(),
    MaxCharacters: int({ min: 1 }).req(),
    DefaultText: str(),
    SendMethodId: int({ oneOf: [1, 2] }).req(),
  },
  keys: (m) => [{ kind: 'messageType', key: m.Id, path: ['Id'] }],
  async write(db, items) {
    await insertRows(db, 'message_types', items.map((m) => ({
      id: m.Id,
      name: m.Name,
      description: m.Description,
      max_characters: m.MaxCharacters,
      default_text: m.DefaultText,
      send_method_id: m.SendMethodId,
    })));
  },
});
