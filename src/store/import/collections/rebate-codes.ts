import { rebateCodeSignKey } from '../../sign-key.js';
import { collection, flag, insertRows, insertWithId, periodIssue, refsTo, refTo, type KeyClaim } from '../collection.js';
import type { Issue } from '../fields.js';
import { bool, dateTime, guid, id, ids, int, list, num, obj, str, timespan } from '../fields.js';

/**
 * Rebate codes with their weekdays, services, customers, and (an extension of the file
 * format, so demo and test data can show history) their Transactions and PaymentLog.
 */

const PUNCH_TICKET = 3;
const VALUE_CARD = 4;
const GIFT_CARD = 5;
const PERCENT = 1;

const transaction = obj({
  Id: id(),
  Amount: num().req(),
  Usage: int(),
  BookingId: id(),
  Note: str(),
  CustomerId: guid(),
  ServiceId: id(),
  CreatedDate: dateTime(),
  UpdatedDate: dateTime(),
});

const payment = obj({
  Id: id(),
  Amount: num(),
  AmountCredited: num(),
  CurrencyId: str(),
  Comments: str(),
  Created: dateTime(),
  Updated: dateTime(),
});

const receiver = obj({
  CustomerId: guid(),
  Firstname: str(),
  Lastname: str(),
  Email: str(),
  ReceiverMessage: str(),
});

export const rebateCodes = collection({
  shape: {
    CompanyId: guid().req(),
    Id: id(),
    RebateCodeSign: str({ nonEmpty: true }).req(),
    RebateCodeTypeId: int({ oneOf: [1, 2, 3, 4, 5] }).req(),
    RebateCodeValue: int({ min: 0 }).req(),
    RebateCodeStatusId: int({ oneOf: [1, 2, 3] }),
    Name: str(),
    ValidFrom: dateTime().req(),
    ValidTo: dateTime().req(),
    FromTime: timespan(),
    ToTime: timespan(),
    MaxNumberOfUses: int({ min: 0 }),
    MaxNumberOfUsesPerCustomer: int({ min: 0 }),
    NumberOfUsesUsed: int({ min: 0 }),
    PersonalNote: str(),
    ArticleId: id(),
    PaymentReceived: bool(),
    DaysOfWeek: list(int({ min: 1, max: 7 }), { unique: true }),
    ServiceIds: ids(),
    CustomerIds: list(guid(), { unique: true }),
    RemainingAmount: num({ min: 0 }),
    RemainingUsage: int({ min: 0 }),
    RebateCodeCurrencySign: str(),
    PriceSign: str(),
    CreatedBy: str(),
    UpdatedBy: str(),
    Created: dateTime(),
    Updated: dateTime(),
    Receiver: receiver,
    Transactions: list(transaction),
    PaymentLog: list(payment),
  },
  keys: (r) => [
    ...(r.Id === null ? [] : [{ kind: 'rebateCode', key: r.Id, path: ['Id'] } satisfies KeyClaim]),
    // One sign per company, whatever its case.
    { kind: 'rebateCodeSign', key: `${r.CompanyId}/${rebateCodeSignKey(r.RebateCodeSign)}`, path: ['RebateCodeSign'] },
    ...(r.Transactions ?? []).flatMap((t, i): KeyClaim[] =>
      t.Id === null ? [] : [{ kind: 'rebateCodeTransaction', key: t.Id, path: ['Transactions', i, 'Id'] }],
    ),
    ...(r.PaymentLog ?? []).flatMap((p, i): KeyClaim[] =>
      p.Id === null ? [] : [{ kind: 'paymentLog', key: p.Id, path: ['PaymentLog', i, 'Id'] }],
    ),
  ],
  refs: (r) => [
    ...refTo('article', r.ArticleId, 'ArticleId', r.CompanyId),
    ...refsTo('service', r.ServiceIds, 'ServiceIds', r.CompanyId),
    ...refsTo('customer', r.CustomerIds, 'CustomerIds', r.CompanyId),
    ...(r.Receiver?.CustomerId
      ? [{ kind: 'customer' as const, key: r.Receiver.CustomerId, path: ['Receiver', 'CustomerId'], company: r.CompanyId }]
      : []),
    ...(r.Transactions ?? []).flatMap((t, i) => [
      ...refTo('booking', t.BookingId, 'BookingId', r.CompanyId),
      ...refTo('customer', t.CustomerId, 'CustomerId', r.CompanyId),
      ...refTo('service', t.ServiceId, 'ServiceId', r.CompanyId),
    ].map((ref) => ({ ...ref, path: ['Transactions', i, ...ref.path] }))),
  ],
  check(r) {
    const issues: Issue[] = periodIssue(r.ValidFrom, r.ValidTo, 'ValidTo', 'ValidFrom');
    if (r.RebateCodeTypeId === PERCENT && r.RebateCodeValue > 100) {
      issues.push({ path: ['RebateCodeValue'], message: 'must be at most 100 for a percent code (type 1)' });
    }
    if (r.RemainingAmount !== null && r.RebateCodeTypeId !== VALUE_CARD && r.RebateCodeTypeId !== GIFT_CARD) {
      issues.push({ path: ['RemainingAmount'], message: 'applies only to value and gift cards (types 4, 5)' });
    }
    if (r.RemainingUsage !== null && r.RebateCodeTypeId !== PUNCH_TICKET) {
      issues.push({ path: ['RemainingUsage'], message: 'applies only to punch tickets (type 3)' });
    }
    return issues;
  },
  async write(db, items, { now }) {
    for (const r of items) {
      const isCard = r.RebateCodeTypeId === VALUE_CARD || r.RebateCodeTypeId === GIFT_CARD;
      const codeId = await insertWithId(db, 'rebate_codes', {
        company_id: r.CompanyId,
        sign: r.RebateCodeSign,
        sign_key: rebateCodeSignKey(r.RebateCodeSign),
        type_id: r.RebateCodeTypeId,
        value: r.RebateCodeValue,
        status_id: r.RebateCodeStatusId ?? 1,
        name: r.Name,
        valid_from: r.ValidFrom,
        valid_to: r.ValidTo,
        from_time: r.FromTime,
        to_time: r.ToTime,
        max_number_of_uses: r.MaxNumberOfUses ?? 0,
        max_number_of_uses_per_customer: r.MaxNumberOfUsesPerCustomer ?? 0,
        number_of_uses_used: r.NumberOfUsesUsed ?? 0,
        // A new card holds its full value; a new punch ticket all its uses.
        remaining_amount: r.RemainingAmount ?? (isCard ? r.RebateCodeValue : null),
        remaining_usage: r.RemainingUsage ?? (r.RebateCodeTypeId === PUNCH_TICKET ? r.RebateCodeValue : null),
        personal_note: r.PersonalNote,
        article_id: r.ArticleId,
        payment_received: flag(r.PaymentReceived, 0),
        currency_sign: r.RebateCodeCurrencySign,
        price_sign: r.PriceSign,
        created_by: r.CreatedBy,
        updated_by: r.UpdatedBy,
        created: r.Created ?? now,
        updated: r.Updated ?? r.Created ?? now,
        receiver_customer_id: r.Receiver?.CustomerId ?? null,
        receiver_firstname: r.Receiver?.Firstname ?? null,
        receiver_lastname: r.Receiver?.Lastname ?? null,
        receiver_email: r.Receiver?.Email ?? null,
        receiver_message: r.Receiver?.ReceiverMessage ?? null,
      }, r.Id);
      await insertRows(db, 'rebate_code_days', (r.DaysOfWeek ?? []).map((day) => ({ rebate_code_id: codeId, day_of_week: day })));
      await insertRows(db, 'rebate_code_services', (r.ServiceIds ?? []).map((serviceId) => ({ rebate_code_id: codeId, service_id: serviceId })));
      await insertRows(db, 'rebate_code_customers', (r.CustomerIds ?? []).map((customerId) => ({ rebate_code_id: codeId, customer_id: customerId })));
      for (const t of r.Transactions ?? []) {
        await insertWithId(db, 'rebate_code_transactions', {
          company_id: r.CompanyId,
          rebate_code_id: codeId,
          amount: t.Amount,
          usage: t.Usage ?? 0,
          booking_id: t.BookingId,
          note: t.Note,
          customer_id: t.CustomerId,
          service_id: t.ServiceId,
          created_date: t.CreatedDate ?? now,
          updated_date: t.UpdatedDate ?? t.CreatedDate ?? now,
        }, t.Id);
      }
      for (const p of r.PaymentLog ?? []) {
        await insertWithId(db, 'payment_logs', {
          company_id: r.CompanyId,
          rebate_code_id: codeId,
          amount: p.Amount,
          amount_credited: p.AmountCredited,
          currency_id: p.CurrencyId,
          comments: p.Comments,
          created: p.Created ?? now,
          updated: p.Updated ?? p.Created ?? now,
        }, p.Id);
      }
    }
  },
});
