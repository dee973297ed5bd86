import { collection, flag, insertRows, refsTo } from '../collection.js';
import { bool, color, dateTime, guid, id, ids, int, str, url } from '../fields.js';

/** Services, tags and customers of a company. */

export const services = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Description: str(),
    ImageUrl: url(),
    Active: bool(),
  },
  keys: (s) => [{ kind: 'service', key: s.Id, path: ['Id'] }],
  async write(db, items) {
    await insertRows(db, 'services', items.map((s) => ({
      id: s.Id,
      company_id: s.CompanyId,
      name: s.Name,
      description: s.Description,
      image_url: s.ImageUrl,
      active: flag(s.Active, 1),
    })));
  },
});

export const tags = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    Scope: int(),
    Color: color(),
    SortOrder: int(),
    Active: bool(),
    CreatedDate: dateTime(),
  },
  keys: (t) => [{ kind: 'tag', key: t.Id, path: ['Id'] }],
  async write(db, items, { now }) {
    await insertRows(db, 'tags', items.map((t) => ({
      id: t.Id,
      company_id: t.CompanyId,
      name: t.Name,
      scope: t.Scope,
      color: t.Color,
      sort_order: t.SortOrder ?? 0,
      active: flag(t.Active, 1),
      created_date: t.CreatedDate ?? now,
    })));
  },
});

export const customers = collection({
  shape: {
    CompanyId: guid().req(),
    Id: guid().req(),
    Firstname: str(),
    Lastname: str(),
    Email: str(),
    Phone: str(),
    SocialUserName: str(),
    ImageUrl: str(),
    PersonalIdentityNumber: str(),
    CorporateIdentityNumber: str(),
    InvoiceAddress1: str(),
    InvoiceAddress2: str(),
    InvoiceCity: str(),
    InvoicePostalCode: str(),
    InvoiceCountryCode: str(),
    SubscribedToNewsletter: bool(),
    Comments: str(),
    Created: dateTime(),
    TagIds: ids(),
  },
  keys: (c) => [{ kind: 'customer', key: c.Id, path: ['Id'] }],
  refs: (c) => refsTo('tag', c.TagIds, 'TagIds', c.CompanyId),
  async write(db, items, { now }) {
    await insertRows(db, 'customers', items.map((c) => ({
      id: c.Id,
      company_id: c.CompanyId,
      firstname: c.Firstname,
      lastname: c.Lastname,
      email: c.Email,
      phone: c.Phone,
      social_user_name: c.SocialUserName,
      image_url: c.ImageUrl,
      personal_identity_number: c.PersonalIdentityNumber,
      corporate_identity_number: c.CorporateIdentityNumber,
      invoice_address1: c.InvoiceAddress1,
      invoice_address2: c.InvoiceAddress2,
      invoice_city: c.InvoiceCity,
      invoice_postal_code: c.InvoicePostalCode,
      invoice_country_code: c.InvoiceCountryCode,
      subscribed_to_newsletter: flag(c.SubscribedToNewsletter, 0),
      comments: c.Comments,
      created: c.Created ?? now,
    })));
    await insertRows(db, 'customer_tags', items.flatMap((c) =>
      (c.TagIds ?? []).map((tagId) => ({ customer_id: c.Id, tag_id: tagId })),
    ));
  },
});
