import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B } from './ids.js';

/** Custom fields with their values and services. */
export function customFields() {
  return {
    CustomFields: [
      {
        CompanyId: A, Id: 101, FieldId: 1, Name: 'Hair length', Width: 200, Column: 'TextField1', Description: 'Helps us plan the time', DataType: 'DropDown',
        DefaultValue: 'Medium', IsMandatory: true, MandatoryErrorMessage: 'Please choose your hair length', MaxLength: 20, MultipleLineText: false,
        IsPublic: true, IsHidden: false, SortOrder: 1, Table: 'Booking',
        Values: [
          { Id: 101, Active: true, SortOrder: 1, Value: 'Short' },
          { Id: 102, Active: true, SortOrder: 2, Value: 'Medium' },
          { Id: 103, Active: true, SortOrder: 3, Value: 'Long' },
          { Id: 104, Active: false, SortOrder: 4, Value: 'Extra long' },
        ],
        ServiceIds: [101, 104],
      },
      {
        CompanyId: A, Id: 102, FieldId: 2, Name: 'Allergies', Width: 400, Column: 'TextField2', Description: 'Oils or products to avoid', DataType: 'TextBox',
        IsMandatory: false, MaxLength: 500, MultipleLineText: true, IsPublic: true, IsHidden: false, SortOrder: 2, Table: 'Booking', ServiceIds: [102, 103],
      },
      {
        CompanyId: A, Id: 103, FieldId: 3, Name: 'Membership number', Width: 120, Column: 'TextField3', DataType: 'TextBox', IsMandatory: false, MaxLength: 6,
        RegEx: '^[0-9]{6}$', RegExErrorMessage: 'Six digits', IsPublic: false, IsHidden: true, SortOrder: 3, Table: 'Customer',
      },
      {
        CompanyId: B, Id: 201, FieldId: 1, Name: 'Racket rental', DataType: 'DropDown', IsMandatory: false, IsPublic: true, IsHidden: false, SortOrder: 1, Table: 'Booking',
        Values: [{ Id: 201, Value: 'No' }, { Id: 202, Value: 'Yes, one' }, { Id: 203, Value: 'Yes, two' }],
        ServiceIds: [201],
      },
    ],
  };
}
