import { found } from '../domain/refusals.js';
import { customFieldsRepository, type CustomFieldRecord } from '../store/repositories/custom-fields.js';
import { bool, opt, type Answer } from '../store/prepared.js';
import type { HandlersOf, Schemas } from './types.js';

/** Row → CustomFieldQueryResponse, nested lists included (the one mapping of this area). */
export const toCustomField = ({ field, values, services }: CustomFieldRecord) =>
  ({
    Id: field.id,
    CompanyId: field.company_id,
    GroupId: opt(field.group_id),
    FieldId: field.field_id,
    Name: field.name,
    Width: opt(field.width),
    Column: opt(field.column_name),
    Description: opt(field.description),
    DataType: field.data_type,
    DefaultValue: opt(field.default_value),
    IsMandatory: bool(field.is_mandatory),
    MandatoryErrorMessage: opt(field.mandatory_error_message),
    MaxLength: opt(field.max_length),
    MultipleLineText: bool(field.multiple_line_text),
    RegEx: opt(field.reg_ex),
    RegExId: opt(field.reg_ex_id),
    RegExErrorMessage: opt(field.reg_ex_error_message),
    IsPublic: bool(field.is_public),
    IsHidden: bool(field.is_hidden),
    SortOrder: field.sort_order,
    Table: opt(field.table_name),
    Values: values.map((v) => ({ Id: v.id, Active: bool(v.active), SortOrder: v.sort_order, Value: v.value })),
    Services: services.map((s) => ({ Id: s.id, Name: s.name, ImageUrl: opt(s.image_url) } satisfies Answer<Schemas['CustomFieldServiceResponse']>)),
  } satisfies Answer<Schemas['CustomFieldQueryResponse']>);

export const customFieldHandlers: HandlersOf<'DeleteCustomField'> = {
  /** Hard delete of the configuration with its values and service links; answered as it was. */
  async DeleteCustomField({ params, companyId, store }) {
    return toCustomField(found(await customFieldsRepository(store).delete(companyId, params.Id), 'Custom field not found.'));
  },
};
