/**
 * Rows → API objects of the rebate codes area, in one place: RebateCodeResponse (with its
 * article, services, weekdays, customers, transactions and payment log) and
 * RebateCodeTransactionQueryResponse. SQL nulls become absent fields.
 */
import type { Schemas } from '../operations/types.js';
import type { ArticleWithServices } from '../store/repositories/articles.js';
import type { RebateCodeAggregate, TransactionView } from '../store/repositories/rebate-codes.js';
import { bool, compact, opt } from '../store/rows.js';
import type { Row } from '../store/schema.js';
import { activeByStatus, rebateCodeStatusName, rebateCodeTypeName, WEEKDAYS } from './rebate-code-reference.js';
import type { RebateCodeFacts } from './rebate-codes.js';

type Response = Schemas['RebateCodeResponse'];

/** Which connected lists to fill; GetRebateCodeBySign's Include flags leave the others out. */
export interface Includes {
  services: boolean;
  daysOfWeek: boolean;
  customers: boolean;
}
export const INCLUDE_ALL: Includes = { services: true, daysOfWeek: true, customers: true };

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

export const toService = (s: Pick<Row<'services'>, 'id' | 'name' | 'description' | 'active'>): Schemas['RebateCodeServiceResponse'] =>
  compact({ Id: s.id, Name: s.name, Description: opt(s.description), Active: bool(s.active) });

export const toCustomer = (c: Pick<Row<'customers'>, 'id' | 'firstname' | 'lastname' | 'email' | 'phone' | 'image_url'>): Schemas['RebateCodeCustomerResponse'] =>
  compact({ Id: c.id, Firstname: c.firstname, Lastname: c.lastname, Email: c.email, Phone: c.phone, ImageUrl: c.image_url }) as Schemas['RebateCodeCustomerResponse'];

export const toDayOfWeek = (id: number): Schemas['DaysOfWeekResponse'] => {
  const day = WEEKDAYS[id - 1];
  return { Id: id, DayOfWeek: day.english, DayOfWeekTranslation: day.swedish, DayOfWeekActive: true, DayOfWeekSortOrder: id };
};

export function toArticle({ article: a, services }: ArticleWithServices): Schemas['ArticleResponse'] {
  return compact({
    CompanyId: a.company_id,
    Id: a.id,
    Name: a.name,
    ArticleTypeId: a.article_type_id,
    Description: a.description,
    ImageUrl: a.image_url,
    Active: bool(a.active),
    Amount: a.amount,
    Price: a.price,
    CurrencyId: a.currency_id,
    SortOrder: a.sort_order,
    UpdatedDate: a.updated_date,
    CreatedDate: a.created_date,
    Duration: a.duration,
    Services: services.map((s) => ({ CompanyId: s.company_id, Id: s.id, ServiceId: s.service_id, ArticleId: s.article_id })),
    ServiceIds: services.map((s) => s.service_id),
    PriceSign: a.price_sign,
    VAT: a.vat,
    ValidDays: a.valid_days,
    MaxQuantity: a.max_quantity,
    SendNotification: bool(a.send_notification),
    NotificationEmail: a.notification_email,
  }) as Schemas['ArticleResponse'];
}

/** Usage as signed text (`-1`, `2`), as the document types it. */
export function toTransaction(t: TransactionView): Schemas['RebateCodeTransactionQueryResponse'] {
  return compact({
    Id: t.id,
    CompanyId: t.company_id,
    Note: t.note,
    RebateCodeId: t.rebate_code_id,
    RebateCodeSign: t.code_sign,
    RebateCodeTypeId: t.code_type_id,
    RebateCodeTypeName: rebateCodeTypeName(t.code_type_id),
    Amount: t.amount,
    Usage: String(t.usage),
    BookingId: t.booking_id,
    UpdatedDate: t.updated_date,
    CreatedDate: t.created_date,
    Service:
      t.service_id === null || t.service_name === null
        ? undefined
        : toService({ id: t.service_id, name: t.service_name, description: t.service_description, active: t.service_active ?? 1 }),
    Customer:
      t.customer_id === null
        ? undefined
        : toCustomer({ id: t.customer_id, firstname: t.customer_firstname, lastname: t.customer_lastname, email: t.customer_email, phone: t.customer_phone, image_url: t.customer_image_url }),
    PriceSign: t.code_price_sign,
  }) as Schemas['RebateCodeTransactionQueryResponse'];
}

const toPayment = (p: Row<'payment_logs'>): Schemas['PaymentLogResponse'] =>
  compact({ Id: p.id, Amount: p.amount, AmountCredited: p.amount_credited, CurrencyId: p.currency_id, Comments: p.comments, Created: p.created, Updated: p.updated }) as Schemas['PaymentLogResponse'];

export function toRebateCode(a: RebateCodeAggregate, include: Includes = INCLUDE_ALL): Response {
  const c = a.code;
  return compact({
    Id: c.id,
    CompanyId: c.company_id,
    ValidFrom: c.valid_from,
    ValidTo: c.valid_to,
    FromTime: c.from_time,
    ToTime: c.to_time,
    CreatedBy: c.created_by,
    UpdatedBy: c.updated_by,
    Created: c.created,
    Updated: c.updated,
    PersonalNote: c.personal_note,
    RebateCodeSign: c.sign,
    RebateCodeValue: c.value,
    RebateCodeTypeId: c.type_id,
    Name: c.name,
    RebateCodeStatusId: c.status_id,
    StatusName: rebateCodeStatusName(c.status_id),
    MaxNumberOfUses: c.max_number_of_uses,
    MaxNumberOfUsesPerCustomer: c.max_number_of_uses_per_customer,
    NumberOfUsesUsed: c.number_of_uses_used,
    DaysOfWeek: include.daysOfWeek ? a.days.map(toDayOfWeek) : undefined,
    Services: include.services ? a.services.map(toService) : undefined,
    Article: a.article ? toArticle(a.article) : undefined,
    Transactions: a.transactions.map(toTransaction),
    RemainingAmount: c.remaining_amount,
    RemainingUsage: c.remaining_usage,
    Customers: include.customers ? a.customers.map(toCustomer) : undefined,
    PaymentReceived: bool(c.payment_received),
    RebateCodeCurrencySign: c.currency_sign,
    ActiveByStatus: activeByStatus(c.status_id),
    PriceSign: c.price_sign,
    RebateCodeTypeName: rebateCodeTypeName(c.type_id),
    Company: a.company ? compact({ SitePath: a.company.site_path, PaymentProviderId: a.company.payment_provider_id }) : undefined,
    PaymentLog: a.payments.map(toPayment),
  }) as Response;
}
