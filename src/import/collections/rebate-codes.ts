import { ACTIVE, REBATE_CODE_STATUSES, REBATE_CODE_TYPES, rebateCodeTypeName, WEEKDAYS } from '../../domain/rebate-codes.js';
import { invalid, type FieldError } from '../../domain/refusals.js';
import { rebateCodeSignKey } from '../../store/sign-key.js';
import { collection, columns, entity, flag, insertRows, insertWithId, notBefore, refsTo, refTo, type KeyClaim } from '../collection.js';
import { fromContract, guid, idList, int32, listOf, nonNegative, object, oneOf, positive, type TypeOf } from '../schema.js';
import { article } from './fields-articles.js';
import { customer, service } from './people.js';
import { booking } from './scheduling.js';

/**
 * Rebate codes with their weekdays, services, customers, and (an extension of the file
 * format, so demo and test data can show history) their Transactions and PaymentLog.
 */

const rebateCode = entity({ label: 'rebate code', table: 'rebate_codes', owned: true });
const sign = entity({
  label: 'rebate code',
  table: 'rebate_codes',
  column: 'sign_key',
  owned: true,
  perCompany: { what: 'sign', note: ' (signs are unique regardless of case)' },
});
const transaction = entity({ label: 'rebate code transaction', table: 'rebate_code_transactions', owned: true });
const paymentLog = entity({ label: 'payment log', table: 'payment_logs', owned: true });

type TypeName = (typeof REBATE_CODE_TYPES)[keyof typeof REBATE_CODE_TYPES];
const isType = (typeId: number, ...names: TypeName[]): boolean => names.some((name) => rebateCodeTypeName(typeId) === name);
const idsOf = (names: Record<number, string>): number[] => Object.keys(names).map(Number);

const codeFields = fromContract('RebateCodeResponse', [
  'Id', 'RebateCodeSign', 'RebateCodeTypeId', 'RebateCodeValue', 'RebateCodeStatusId', 'Name', 'ValidFrom', 'ValidTo',
  'FromTime', 'ToTime', 'MaxNumberOfUses', 'MaxNumberOfUsesPerCustomer', 'NumberOfUsesUsed', 'PersonalNote', 'PaymentReceived',
  'RemainingAmount', 'RemainingUsage', 'RebateCodeCurrencySign', 'PriceSign', 'CreatedBy', 'UpdatedBy', 'Created', 'Updated',
]);
const transactionFields = fromContract('RebateCodeTransactionQueryResponse', ['Id', 'Amount', 'BookingId', 'Note', 'CreatedDate', 'UpdatedDate']);
const paymentFields = fromContract('PaymentLogResponse', ['Id', 'Amount', 'AmountCredited', 'CurrencyId', 'Comments', 'Created', 'Updated']);

const transactionItem = object(
  {
    ...transactionFields,
    Id: positive(transactionFields.Id),
    BookingId: positive(transactionFields.BookingId),
    // Uses changed, a number here (the contract answers it as text).
    Usage: int32,
    CustomerId: guid,
    ServiceId: positive(int32),
  },
  { required: ['Amount'] },
);
const paymentItem = object({ ...paymentFields, Id: positive(paymentFields.Id) });
const receiver = object(fromContract('CreateArticleRebateCodeReceiver', ['CustomerId', 'Firstname', 'Lastname', 'Email', 'ReceiverMessage']));
const NO_RECEIVER: TypeOf<typeof receiver> = { CustomerId: null, Firstname: null, Lastname: null, Email: null, ReceiverMessage: null };

const schema = object(
  {
    CompanyId: guid,
    ...codeFields,
    Id: positive(codeFields.Id),
    RebateCodeTypeId: oneOf(codeFields.RebateCodeTypeId, idsOf(REBATE_CODE_TYPES)),
    RebateCodeValue: nonNegative(codeFields.RebateCodeValue),
    RebateCodeStatusId: oneOf(codeFields.RebateCodeStatusId, idsOf(REBATE_CODE_STATUSES)),
    MaxNumberOfUses: nonNegative(codeFields.MaxNumberOfUses),
    MaxNumberOfUsesPerCustomer: nonNegative(codeFields.MaxNumberOfUsesPerCustomer),
    NumberOfUsesUsed: nonNegative(codeFields.NumberOfUsesUsed),
    RemainingAmount: nonNegative(codeFields.RemainingAmount),
    RemainingUsage: nonNegative(codeFields.RemainingUsage),
    ArticleId: positive(int32),
    DaysOfWeek: listOf(oneOf(int32, WEEKDAYS.map((day) => day.id)), { uniqueItems: true }),
    ServiceIds: idList,
    CustomerIds: listOf(guid, { uniqueItems: true }),
    Receiver: receiver,
    Transactions: listOf(transactionItem),
    PaymentLog: listOf(paymentItem),
  },
  { required: ['CompanyId', 'RebateCodeSign', 'RebateCodeTypeId', 'RebateCodeValue', 'ValidFrom', 'ValidTo'], filled: ['RebateCodeSign'] },
);
type RebateCodeItem = TypeOf<typeof schema>;

/** Nested rows with ids of their own, which nothing else may claim. */
const nestedKeys = (target: typeof transaction, list: { Id: number | null }[] | null, field: string): KeyClaim[] =>
  (list ?? []).flatMap((row, index) => (row.Id === null ? [] : [{ entity: target, key: row.Id, field: `${field}[${index}].Id` }]));

function check(r: RebateCodeItem): FieldError[] {
  const errors = notBefore(r, 'ValidFrom', 'ValidTo');
  if (isType(r.RebateCodeTypeId, 'Percent') && r.RebateCodeValue > 100) {
    errors.push(invalid('LessThanOrEqual', 'RebateCodeValue', (name) => `${name} must be less than or equal to '100' for a Percent code.`));
  }
  if (r.RemainingAmount !== null && !isType(r.RebateCodeTypeId, 'ValueCard', 'GiftCard')) {
    errors.push(invalid('Invalid', 'RemainingAmount', (name) => `${name} applies only to ValueCard and GiftCard codes.`));
  }
  if (r.RemainingUsage !== null && !isType(r.RebateCodeTypeId, 'PunchTicket')) {
    errors.push(invalid('Invalid', 'RemainingUsage', (name) => `${name} applies only to PunchTicket codes.`));
  }
  // Guids are compared lower-case, so two spellings of one customer would collide as links.
  const repeated = (r.CustomerIds ?? []).findIndex((id, index, all) => all.indexOf(id) !== index);
  if (repeated >= 0) errors.push(invalid('Unique', `CustomerIds[${repeated}]`, (name) => `${name} lists a customer twice.`));
  return errors;
}

function codeRow(r: RebateCodeItem, now: string) {
  const receiverFields = r.Receiver ?? NO_RECEIVER;
  return {
    ...columns(r, ['CompanyId', 'Name', 'ValidFrom', 'ValidTo', 'FromTime', 'ToTime', 'PersonalNote', 'ArticleId', 'PriceSign']),
    ...columns(r, ['CreatedBy', 'UpdatedBy']),
    ...columns(receiverFields, ['CustomerId', 'Firstname', 'Lastname', 'Email'], 'receiver_'),
    receiver_message: receiverFields.ReceiverMessage,
    sign: r.RebateCodeSign,
    sign_key: rebateCodeSignKey(r.RebateCodeSign),
    type_id: r.RebateCodeTypeId,
    value: r.RebateCodeValue,
    status_id: r.RebateCodeStatusId ?? ACTIVE,
    currency_sign: r.RebateCodeCurrencySign,
    payment_received: flag(r.PaymentReceived, 0),
    max_number_of_uses: r.MaxNumberOfUses ?? 0,
    max_number_of_uses_per_customer: r.MaxNumberOfUsesPerCustomer ?? 0,
    number_of_uses_used: r.NumberOfUsesUsed ?? 0,
    // A new card holds its full value; a new punch ticket all its uses.
    remaining_amount: r.RemainingAmount ?? (isType(r.RebateCodeTypeId, 'ValueCard', 'GiftCard') ? r.RebateCodeValue : null),
    remaining_usage: r.RemainingUsage ?? (isType(r.RebateCodeTypeId, 'PunchTicket') ? r.RebateCodeValue : null),
    created: r.Created ?? now,
    updated: r.Updated ?? r.Created ?? now,
  };
}

export const rebateCodes = collection({
  entity: rebateCode,
  schema,
  keys: (r) => [
    { entity: sign, key: `${r.CompanyId}/${rebateCodeSignKey(r.RebateCodeSign)}`, field: 'RebateCodeSign' },
    ...nestedKeys(transaction, r.Transactions, 'Transactions'),
    ...nestedKeys(paymentLog, r.PaymentLog, 'PaymentLog'),
  ],
  refs: (r) => [
    ...refTo(article, r.ArticleId, 'ArticleId', r.CompanyId),
    ...refsTo(service, r.ServiceIds, 'ServiceIds', r.CompanyId),
    ...refsTo(customer, r.CustomerIds, 'CustomerIds', r.CompanyId),
    ...refTo(customer, r.Receiver?.CustomerId ?? null, 'Receiver.CustomerId', r.CompanyId),
    ...(r.Transactions ?? []).flatMap((t, i) => [
      ...refTo(booking, t.BookingId, `Transactions[${i}].BookingId`, r.CompanyId),
      ...refTo(customer, t.CustomerId, `Transactions[${i}].CustomerId`, r.CompanyId),
      ...refTo(service, t.ServiceId, `Transactions[${i}].ServiceId`, r.CompanyId),
    ]),
  ],
  check,
  async write(db, items, { now }) {
    for (const r of items) {
      const codeId = await insertWithId(db, 'rebate_codes', codeRow(r, now), r.Id);
      const owner = { company_id: r.CompanyId, rebate_code_id: codeId };
      await insertRows(db, 'rebate_code_days', (r.DaysOfWeek ?? []).map((day_of_week) => ({ rebate_code_id: codeId, day_of_week })));
      await insertRows(db, 'rebate_code_services', (r.ServiceIds ?? []).map((service_id) => ({ rebate_code_id: codeId, service_id })));
      await insertRows(db, 'rebate_code_customers', (r.CustomerIds ?? []).map((customer_id) => ({ rebate_code_id: codeId, customer_id })));
      for (const t of r.Transactions ?? []) {
        const row = { ...owner, ...columns(t, ['Amount', 'BookingId', 'Note', 'CustomerId', 'ServiceId']), usage: t.Usage ?? 0 };
        await insertWithId(db, 'rebate_code_transactions', { ...row, created_date: t.CreatedDate ?? now, updated_date: t.UpdatedDate ?? t.CreatedDate ?? now }, t.Id);
      }
      for (const p of r.PaymentLog ?? []) {
        const row = { ...owner, ...columns(p, ['Amount', 'AmountCredited', 'CurrencyId', 'Comments']) };
        await insertWithId(db, 'payment_logs', { ...row, created: p.Created ?? now, updated: p.Updated ?? p.Created ?? now }, p.Id);
      }
    }
  },
});
