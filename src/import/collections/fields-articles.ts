import { collection, columns, entity, flag, insertRows, insertWithId, linkRows, refsTo } from '../collection.js';
import { fromContract, guid, idList, listOf, narrow, nonNegative, object, positive } from '../schema.js';
import { service } from './people.js';

/** Custom field configurations and articles. */

const customField = entity({ label: 'custom field', table: 'custom_fields', owned: true });
const customFieldValue = entity({ label: 'custom field value', table: 'custom_field_values', owned: false });
export const article = entity({ label: 'article', table: 'articles', owned: true });

const fieldFields = fromContract('CustomFieldQueryResponse', [
  'Id', 'GroupId', 'FieldId', 'Name', 'Width', 'Column', 'Description', 'DataType', 'DefaultValue', 'IsMandatory',
  'MandatoryErrorMessage', 'MaxLength', 'MultipleLineText', 'RegEx', 'RegExId', 'RegExErrorMessage', 'IsPublic', 'IsHidden',
  'SortOrder', 'Table',
]);
const valueFields = fromContract('CustomFieldValueResponse', ['Id', 'Active', 'SortOrder', 'Value']);

export const customFields = collection({
  entity: customField,
  schema: object(
    {
      CompanyId: guid,
      ...fieldFields,
      Id: positive(fieldFields.Id),
      Width: nonNegative(fieldFields.Width),
      MaxLength: nonNegative(fieldFields.MaxLength),
      // The expression is checked as the server's Ajv checks a `regex` format.
      RegEx: narrow(fieldFields.RegEx, { format: 'regex' }),
      Values: listOf(object({ ...valueFields, Id: positive(valueFields.Id) }, { required: ['Value'] })),
      ServiceIds: idList,
    },
    { required: ['CompanyId', 'FieldId', 'Name'], filled: ['Name', 'DataType'] },
  ),
  keys: (f) => (f.Values ?? []).flatMap((v, index) => (v.Id === null ? [] : [{ entity: customFieldValue, key: v.Id, field: `Values[${index}].Id` }])),
  refs: (f) => refsTo(service, f.ServiceIds, 'ServiceIds', f.CompanyId),
  async write(db, items) {
    for (const f of items) {
      const row = {
        ...columns(f, ['CompanyId', 'GroupId', 'FieldId', 'Name', 'Width', 'Description', 'DefaultValue', 'MandatoryErrorMessage']),
        ...columns(f, ['MaxLength', 'RegEx', 'RegExId', 'RegExErrorMessage']),
        // Column and Table are SQL reserved words, so their columns carry a suffix.
        column_name: f.Column,
        table_name: f.Table,
        data_type: f.DataType ?? 'TextBox',
        is_mandatory: flag(f.IsMandatory, 0),
        multiple_line_text: flag(f.MultipleLineText, 0),
        is_public: flag(f.IsPublic, 0),
        is_hidden: flag(f.IsHidden, 0),
        sort_order: f.SortOrder ?? 0,
      };
      const fieldId = await insertWithId(db, 'custom_fields', row, f.Id);
      // Values keep the file's order when it gives no SortOrder.
      for (const [index, v] of (f.Values ?? []).entries()) {
        const value = { custom_field_id: fieldId, active: flag(v.Active, 1), sort_order: v.SortOrder ?? index, value: v.Value };
        await insertWithId(db, 'custom_field_values', value, v.Id);
      }
      await insertRows(db, 'custom_field_services', (f.ServiceIds ?? []).map((service_id) => ({ custom_field_id: fieldId, service_id })));
    }
  },
});

const articleFields = fromContract('ArticleResponse', [
  'Id', 'Name', 'ArticleTypeId', 'Description', 'ImageUrl', 'Active', 'Amount', 'Price', 'CurrencyId', 'SortOrder',
  'UpdatedDate', 'CreatedDate', 'Duration', 'PriceSign', 'VAT', 'ValidDays', 'MaxQuantity', 'SendNotification',
  'NotificationEmail',
]);

export const articles = collection({
  entity: article,
  schema: object(
    {
      CompanyId: guid,
      ...articleFields,
      Id: positive(articleFields.Id),
      ArticleTypeId: positive(articleFields.ArticleTypeId),
      Amount: nonNegative(articleFields.Amount),
      Price: nonNegative(articleFields.Price),
      Duration: nonNegative(articleFields.Duration),
      VAT: nonNegative(articleFields.VAT),
      ValidDays: nonNegative(articleFields.ValidDays),
      MaxQuantity: nonNegative(articleFields.MaxQuantity),
      ServiceIds: idList,
    },
    { required: ['CompanyId', 'Id', 'Name', 'ArticleTypeId'], filled: ['Name'] },
  ),
  refs: (a) => refsTo(service, a.ServiceIds, 'ServiceIds', a.CompanyId),
  async write(db, items, { now }) {
    await insertRows(db, 'articles', items.map((a) => ({
      ...columns(a, ['Id', 'CompanyId', 'Name', 'ArticleTypeId', 'Description', 'ImageUrl', 'Amount', 'Price', 'CurrencyId']),
      ...columns(a, ['Duration', 'PriceSign', 'VAT', 'ValidDays', 'MaxQuantity', 'NotificationEmail']),
      active: flag(a.Active, 1),
      sort_order: a.SortOrder ?? 0,
      updated_date: a.UpdatedDate ?? a.CreatedDate ?? now,
      created_date: a.CreatedDate ?? now,
      send_notification: flag(a.SendNotification, 0),
    })));
    await insertRows(db, 'article_services', linkRows(items, (a) => a.ServiceIds, (a, service_id) => ({ company_id: a.CompanyId, article_id: a.Id, service_id })));
  },
});
