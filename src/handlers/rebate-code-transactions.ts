import { insufficientBalance, planTransaction, rebateCodeTypeName, type RebateCodeFacts, type TransactionRequest } from '../domain/rebate-codes.js';
import { notFound, notOfCompany, refused } from '../domain/refusals.js';
import { rebateCodeTransactionsRepository, transactionView, type TransactionView } from '../store/repositories/rebate-code-transactions.js';
import { rebateCodesRepository, type RebateCodeAggregate } from '../store/repositories/rebate-codes.js';
import { bool, code, opt, type Answer } from '../store/prepared.js';
import type { Row } from '../store/schema.js';
import type { HandlersOf, Schemas } from './types.js';

// A rebate code's transactions: the change of its balance, and the transaction as the API
// shows it (here and within a code's answer, rebate-codes.mappers.ts); a stored code as the
// facts its rules read.

/** What the rules need from a stored code; the connected lists when loaded (else none). */
export function toFacts(c: RebateCodeAggregate['code'], lists?: Pick<RebateCodeAggregate, 'days' | 'services' | 'customers'>): RebateCodeFacts {
  return {
    sign: c.sign,
    statusId: c.status_id,
    validFrom: c.valid_from,
    validTo: c.valid_to,
    fromTime: c.from_time,
    toTime: c.to_time,
    daysOfWeek: lists?.days ?? [],
    serviceIds: lists?.services.map((s) => s.id) ?? [],
    maxNumberOfUses: c.max_number_of_uses,
    numberOfUsesUsed: c.number_of_uses_used,
    remainingAmount: c.remaining_amount,
    remainingUsage: c.remaining_usage,
    maxNumberOfUsesPerCustomer: c.max_number_of_uses_per_customer,
    // a connected customer without e-mail still restricts the code (to nobody who can be named)
    customerEmails: lists?.customers.map((customer) => customer.email ?? '') ?? [],
    // The receiver of a gift card is who will use it.
    receiverEmail: c.receiver_email ?? undefined,
  };
}

export const toService = (s: Pick<Row<'services'>, 'id' | 'name' | 'description' | 'active'>) =>
  ({ Id: s.id, Name: s.name, Description: opt(s.description), Active: bool(s.active) } satisfies Answer<Schemas['RebateCodeServiceResponse']>);

export const toCustomer = (c: Pick<Row<'customers'>, 'id' | 'firstname' | 'lastname' | 'email' | 'phone' | 'image_url'>) =>
  ({ Id: c.id, Firstname: opt(c.firstname), Lastname: opt(c.lastname), Email: opt(c.email), Phone: opt(c.phone), ImageUrl: opt(c.image_url) } satisfies Answer<Schemas['RebateCodeCustomerResponse']>);

/** Usage as signed text (`-1`, `2`), as the contract types it. */
export const toTransaction = (t: TransactionView) =>
  ({
    Id: t.id,
    CompanyId: t.company_id,
    Note: opt(t.note),
    RebateCodeId: t.rebate_code_id, RebateCodeSign: t.code_sign,
    RebateCodeTypeId: code(t.code_type_id), RebateCodeTypeName: rebateCodeTypeName(t.code_type_id),
    Amount: t.amount,
    Usage: String(t.usage),
    BookingId: opt(t.booking_id),
    UpdatedDate: t.updated_date, CreatedDate: t.created_date,
    Service:
      t.service_id === null || t.service_name === null
        ? undefined
        : toService({ id: t.service_id, name: t.service_name, description: t.service_description, active: t.service_active ?? 1 }),
    Customer:
      t.customer_id === null
        ? undefined
        : toCustomer({ id: t.customer_id, firstname: t.customer_firstname, lastname: t.customer_lastname, email: t.customer_email, phone: t.customer_phone, image_url: t.customer_image_url }),
    PriceSign: opt(t.code_price_sign),
  } satisfies Answer<Schemas['RebateCodeTransactionQueryResponse']>);

export const rebateCodeTransactionHandlers: HandlersOf<'CreateRebateCodeTransaction'> = {
  /**
   * The code with the booking in one statement, then the change applied and recorded (see
   * `record`); the recorded row, with what was read, is the answer.
   */
  async CreateRebateCodeTransaction({ body, companyId: company, caller, store }) {
    const transactions = rebateCodeTransactionsRepository(store);
    const found = await transactions.findCode(company, body.RebateCodeId, body.BookingId ?? undefined);
    if (!found) throw notFound(`Rebate code ${body.RebateCodeId} not found.`);
    const { code, booking } = found;
    if (body.BookingId != null && !booking) throw refused(notOfCompany('InvalidBookingId', 'BookingId', 'a booking'));
    const request: TransactionRequest = { amount: body.Amount, usage: body.Usage, changeType: body.ChangeType };
    const now = new Date();
    const at = now.toISOString();
    const planned = planTransaction(toFacts(code), request, now);
    if (planned.failure) throw refused(planned.failure);
    const { plan } = planned;
    // The conditional UPDATE and the transaction row commit together or not at all.
    const stored = await transactions.record(
      { companyId: company, codeId: code.id, ...plan, at, by: caller?.sub ?? null },
      {
        company_id: company, rebate_code_id: code.id, amount: plan.amountDelta, usage: plan.usageDelta,
        booking_id: booking?.booking_id ?? null, customer_id: booking?.customer_id ?? null, service_id: booking?.service_id ?? null,
        created_date: at, updated_date: at,
      },
    );
    if (stored === undefined) {
      // Another transaction got there first: explain with the code as it is now.
      const current = await rebateCodesRepository(store).findById(company, code.id);
      throw refused((current && planTransaction(toFacts(current), request, now).failure) || insufficientBalance(code.sign));
    }
    return { RebateCodeTransactionItem: toTransaction(transactionView(stored, code, booking)) };
  },
};
