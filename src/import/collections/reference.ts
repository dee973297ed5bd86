import { collection, columns, entity, flag, insertRows, linkRows, refsTo } from '../collection.js';
import { dateTime, fromContract, guid, idList, narrow, nonNegative, object, oneOf, positive, text } from '../schema.js';

/** Companies and the global reference data (categories, billing methods, message types). */

export const company = entity({ label: 'company', table: 'companies', owned: false });
export const category = entity({ label: 'category', table: 'categories', owned: false });
export const billingMethod = entity({ label: 'billing method', table: 'billing_methods', owned: false });
export const messageType = entity({ label: 'message type', table: 'message_types', owned: false });

const companyFields = fromContract('RebateCodeCompanyResponse', ['SitePath', 'PaymentProviderId']);
const { TokenLimit } = fromContract('AiChatUsageResponse', ['TokenLimit']);

export const companies = collection({
  entity: company,
  schema: object(
    { Id: guid, Name: text, ...companyFields, McpTokenLimit: nonNegative(TokenLimit), CategoryIds: idList, Created: dateTime },
    { required: ['Id', 'Name'], filled: ['Name'] },
  ),
  refs: (c) => refsTo(category, c.CategoryIds, 'CategoryIds', null),
  async write(db, items, { now }) {
    await insertRows(db, 'companies', items.map((c) => ({
      ...columns(c, ['Id', 'Name', 'SitePath', 'PaymentProviderId', 'McpTokenLimit']),
      created: c.Created ?? now,
    })));
    await insertRows(db, 'company_categories', linkRows(items, (c) => c.CategoryIds, (c, category_id) => ({ company_id: c.Id, category_id })));
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

const categoryFields = fromContract('CompanyCategoryQueryResponse', ['Id', 'Name', 'NormalizedName', 'Active']);

export const categories = collection({
  entity: category,
  schema: object({ ...categoryFields, Id: positive(categoryFields.Id) }, { required: ['Id', 'Name'], filled: ['Name'] }),
  async write(db, items) {
    await insertRows(db, 'categories', items.map((c) => ({
      ...columns(c, ['Id', 'Name']),
      normalized_name: c.NormalizedName ?? slug(c.Name),
      active: flag(c.Active, 1),
    })));
  },
});

const billingFields = fromContract('BillingMethodResponse', ['Id', 'Name', 'Description', 'Countries']);

export const billingMethods = collection({
  entity: billingMethod,
  schema: object(
    {
      ...billingFields,
      Id: positive(billingFields.Id),
      // Each country once, as a link row.
      Countries: narrow(billingFields.Countries, { uniqueItems: true, items: { minLength: 1 } }),
    },
    { required: ['Id', 'Name'], filled: ['Name'] },
  ),
  async write(db, items) {
    await insertRows(db, 'billing_methods', items.map((b) => columns(b, ['Id', 'Name', 'Description'])));
    await insertRows(db, 'billing_method_countries', linkRows(items, (b) => b.Countries, (b, country_id) => ({ billing_method_id: b.Id, country_id })));
  },
});

/** 1 Email, 2 SMS (docs/decisions.md, "Reference values"): the values the store's CHECK allows. */
const SEND_METHODS = [1, 2];
const typeFields = fromContract('MessageTypeQueryResponse', ['Id', 'Name', 'Description', 'MaxCharacters', 'DefaultText', 'SendMethodId']);

export const messageTypes = collection({
  entity: messageType,
  schema: object(
    {
      ...typeFields,
      Id: positive(typeFields.Id),
      MaxCharacters: positive(typeFields.MaxCharacters),
      SendMethodId: oneOf(typeFields.SendMethodId, SEND_METHODS),
    },
    { required: ['Id', 'Name', 'MaxCharacters', 'SendMethodId'], filled: ['Name'] },
  ),
  async write(db, items) {
    await insertRows(db, 'message_types', items.map((m) => columns(m, ['Id', 'Name', 'Description', 'MaxCharacters', 'DefaultText', 'SendMethodId'])));
  },
});
