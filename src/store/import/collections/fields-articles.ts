import { collection, flag, insertRows, insertWithId, refsTo } from '../collection.js';
import { bool, dateTime, guid, id, ids, int, list, num, obj, regex, str } from '../fields.js';

/** Custom field configurations and articles. */

export const customFields = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    GroupId: int(),
    FieldId: int().req(),
    Name: str({ nonEmpty: true }).req(),
    Width: int({ min: 0 }),
    Column: str(),
    Description: str(),
    DataType: str({ nonEmpty: true }),
    DefaultValue: str(),
    IsMandatory: bool(),
    MandatoryErrorMessage: str(),
    MaxLength: int({ min: 0 }),
    MultipleLineText: bool(),
    RegEx: regex(),
    RegExId: int(),
    RegExErrorMessage: str(),
    IsPublic: bool(),
    IsHidden: bool(),
    SortOrder: int(),
    Table: str(),
    Values: list(obj({ Id: id(), Active: bool(), SortOrder: int(), Value: str().req() })),
    ServiceIds: ids(),
  },
  keys: (f) => [
    ...(f.Id === null ? [] : [{ kind: 'customField' as const, key: f.Id, path: ['Id'] }]),
    ...(f.Values ?? []).flatMap((v, index) =>
      v.Id === null ? [] : [{ kind: 'customFieldValue' as const, key: v.Id, path: ['Values', index, 'Id'] }],
    ),
  ],
  refs: (f) => refsTo('service', f.ServiceIds, 'ServiceIds', f.CompanyId),
  async write(db, items) {
    for (const f of items) {
      const fieldId = await insertWithId(db, 'custom_fields', {
        company_id: f.CompanyId,
        group_id: f.GroupId,
        field_id: f.FieldId,
        name: f.Name,
        width: f.Width,
        column_name: f.Column,
        description: f.Description,
        data_type: f.DataType ?? 'TextBox',
        default_value: f.DefaultValue,
        is_mandatory: flag(f.IsMandatory, 0),
        mandatory_error_message: f.MandatoryErrorMessage,
        max_length: f.MaxLength,
        multiple_line_text: flag(f.MultipleLineText, 0),
        reg_ex: f.RegEx,
        reg_ex_id: f.RegExId,
        reg_ex_error_message: f.RegExErrorMessage,
        is_public: flag(f.IsPublic, 0),
        is_hidden: flag(f.IsHidden, 0),
        sort_order: f.SortOrder ?? 0,
        table_name: f.Table,
      }, f.Id);
      // Values keep the file's order when it gives no SortOrder.
      for (const [index, v] of (f.Values ?? []).entries()) {
        await insertWithId(db, 'custom_field_values', {
          custom_field_id: fieldId,
          active: flag(v.Active, 1),
          sort_order: v.SortOrder ?? index,
          value: v.Value,
        }, v.Id);
      }
      await insertRows(db, 'custom_field_services', (f.ServiceIds ?? []).map((serviceId) => ({
        custom_field_id: fieldId,
        service_id: serviceId,
      })));
    }
  },
});

export const articles = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id().req(),
    Name: str({ nonEmpty: true }).req(),
    ArticleTypeId: int({ min: 1 }).req(),
    Description: str(),
    ImageUrl: str(),
    Active: bool(),
    Amount: int({ min: 0 }),
    Price: num({ min: 0 }),
    CurrencyId: str(),
    SortOrder: int(),
    UpdatedDate: dateTime(),
    CreatedDate: dateTime(),
    Duration: int({ min: 0 }),
    ServiceIds: ids(),
    PriceSign: str(),
    VAT: num({ min: 0 }),
    ValidDays: int({ min: 0 }),
    MaxQuantity: int({ min: 0 }),
    SendNotification: bool(),
    NotificationEmail: str(),
  },
  keys: (a) => [{ kind: 'article', key: a.Id, path: ['Id'] }],
  refs: (a) => refsTo('service', a.ServiceIds, 'ServiceIds', a.CompanyId),
  async write(db, items, { now }) {
    await insertRows(db, 'articles', items.map((a) => ({
      id: a.Id,
      company_id: a.CompanyId,
      name: a.Name,
      article_type_id: a.ArticleTypeId,
      description: a.Description,
      image_url: a.ImageUrl,
      active: flag(a.Active, 1),
      amount: a.Amount,
      price: a.Price,
      currency_id: a.CurrencyId,
      sort_order: a.SortOrder ?? 0,
      updated_date: a.UpdatedDate ?? a.CreatedDate ?? now,
      created_date: a.CreatedDate ?? now,
      duration: a.Duration,
      price_sign: a.PriceSign,
      vat: a.VAT,
      valid_days: a.ValidDays,
      max_quantity: a.MaxQuantity,
      send_notification: flag(a.SendNotification, 0),
      notification_email: a.NotificationEmail,
    })));
    await insertRows(db, 'article_services', items.flatMap((a) =>
      (a.ServiceIds ?? []).map((serviceId) => ({ company_id: a.CompanyId, article_id: a.Id, service_id: serviceId })),
    ));
  },
});
