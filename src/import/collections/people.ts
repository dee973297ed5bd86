import { collection, columns, entity, flag, insertRows, linkRows, refsTo } from '../collection.js';
import { bool, dateTime, fromContract, guid, idList, narrow, object, positive, text } from '../schema.js';

/** Services, tags and customers of a company. */

export const service = entity({ label: 'service', table: 'services', owned: true });
export const tag = entity({ label: 'tag', table: 'tags', owned: true });
export const customer = entity({ label: 'customer', table: 'customers', owned: true });

/** `#rrggbb`, the form the contract describes for colors. */
export const COLOR = { pattern: '^#[0-9a-fA-F]{6}$' };

const serviceFields = {
  ...fromContract('RebateCodeServiceResponse', ['Id', 'Name', 'Description', 'Active']),
  ...fromContract('MessageServices', ['ImageUrl']),
};

export const services = collection({
  entity: service,
  schema: object(
    { CompanyId: guid, ...serviceFields, Id: positive(serviceFields.Id) },
    { required: ['CompanyId', 'Id', 'Name'], filled: ['Name'] },
  ),
  async write(db, items) {
    await insertRows(db, 'services', items.map((s) => ({
      ...columns(s, ['Id', 'CompanyId', 'Name', 'Description', 'ImageUrl']),
      active: flag(s.Active, 1),
    })));
  },
});

const tagFields = fromContract('TagResponse', ['Id', 'Name', 'Scope', 'Color', 'SortOrder', 'Active', 'CreatedDate']);

export const tags = collection({
  entity: tag,
  schema: object(
    { CompanyId: guid, ...tagFields, Id: positive(tagFields.Id), Color: narrow(tagFields.Color, COLOR) },
    { required: ['CompanyId', 'Id', 'Name'], filled: ['Name'] },
  ),
  async write(db, items, { now }) {
    await insertRows(db, 'tags', items.map((t) => ({
      ...columns(t, ['Id', 'CompanyId', 'Name', 'Scope', 'Color']),
      sort_order: t.SortOrder ?? 0,
      active: flag(t.Active, 1),
      created_date: t.CreatedDate ?? now,
    })));
  },
});

const CUSTOMER_FIELDS = [
  'Id', 'Firstname', 'Lastname', 'Email', 'Phone', 'SocialUserName', 'ImageUrl', 'PersonalIdentityNumber',
  'CorporateIdentityNumber', 'InvoiceAddress1', 'InvoiceAddress2', 'InvoiceCity', 'InvoicePostalCode', 'InvoiceCountryCode',
] as const;

export const customers = collection({
  entity: customer,
  schema: object(
    {
      CompanyId: guid,
      ...fromContract('BookedCustomer', CUSTOMER_FIELDS),
      SubscribedToNewsletter: bool,
      Comments: text,
      Created: dateTime,
      TagIds: idList,
    },
    { required: ['CompanyId', 'Id'] },
  ),
  refs: (c) => refsTo(tag, c.TagIds, 'TagIds', c.CompanyId),
  async write(db, items, { now }) {
    await insertRows(db, 'customers', items.map((c) => ({
      ...columns(c, ['CompanyId', ...CUSTOMER_FIELDS, 'Comments']),
      subscribed_to_newsletter: flag(c.SubscribedToNewsletter, 0),
      created: c.Created ?? now,
    })));
    await insertRows(db, 'customer_tags', linkRows(items, (c) => c.TagIds, (c, tag_id) => ({ customer_id: c.Id, tag_id })));
  },
});
