/**
 * Rows → API objects of the rebate codes area, in one place: RebateCodeResponse (with its
 * article, services, weekdays, customers, transactions and payment log) and
 * RebateCodeTransactionQueryResponse; and a stored code → the facts its rules read. SQL
 * nulls become absent fields. The public view (domain/rebate-code-privacy.ts) is applied
 * here, so no answer can skip it.
 */
import type { CustomerDetails } from '../domain/rebate-code-customer.js';
import type { Audience } from '../domain/rebate-code-privacy.js';
import { activeByStatus, rebateCodeStatusName, rebateCodeTypeName, WEEKDAYS, type RebateCodeFacts } from '../domain/rebate-codes.js';
import type { ArticleWithServices } from '../store/repositories/articles.js';
import type { TransactionView } from '../store/repositories/rebate-code-transactions.js';
import type { PaymentView, RebateCodeAggregate } from '../store/repositories/rebate-codes.js';
import { bool, code, opt, type Answer } from '../store/prepared.js';
import type { Row } from '../store/schema.js';
import type { Schemas } from './types.js';

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

/** A stored customer profile as the buyer's details compare with it. */
export const toCustomerDetails = (c: Row<'customers'>): CustomerDetails => ({
  Email: c.email, Firstname: c.firstname, Lastname: c.lastname, Phone: c.phone,
  PersonalIdentityNumber: c.personal_identity_number, CorporateIdentityNumber: c.corporate_identity_number,
  InvoiceAddress1: c.invoice_address1, InvoiceAddress2: c.invoice_address2, InvoiceCity: c.invoice_city,
  InvoicePostalCode: c.invoice_postal_code, InvoiceCountryCode: c.invoice_country_code,
});

export const toService = (s: Pick<Row<'services'>, 'id' | 'name' | 'description' | 'active'>) =>
  ({ Id: s.id, Name: s.name, Description: opt(s.description), Active: bool(s.active) } satisfies Answer<Schemas['RebateCodeServiceResponse']>);

export const toCustomer = (c: Pick<Row<'customers'>, 'id' | 'firstname' | 'lastname' | 'email' | 'phone' | 'image_url'>) =>
  ({ Id: c.id, Firstname: opt(c.firstname), Lastname: opt(c.lastname), Email: opt(c.email), Phone: opt(c.phone), ImageUrl: opt(c.image_url) } satisfies Answer<Schemas['RebateCodeCustomerResponse']>);

export const toDayOfWeek = (id: number): Schemas['DaysOfWeekResponse'] => {
  const day = WEEKDAYS[id - 1];
  return { Id: code(id), DayOfWeek: day.english, DayOfWeekTranslation: day.swedish, DayOfWeekActive: true, DayOfWeekSortOrder: id };
};

/** `audience` public: without NotificationEmail (a staff member's address). */
export const toArticle = ({ article: a, services }: ArticleWithServices, audience: Audience) =>
  ({
    CompanyId: a.company_id,
    Id: a.id,
    Name: a.name,
    ArticleTypeId: a.article_type_id,
    Description: opt(a.description),
    ImageUrl: opt(a.image_url),
    Active: bool(a.active),
    Amount: opt(a.amount),
    Price: opt(a.price),
    CurrencyId: opt(a.currency_id),
    SortOrder: a.sort_order,
    UpdatedDate: a.updated_date,
    CreatedDate: a.created_date,
    Duration: opt(a.duration),
    Services: services.map((s) => ({ CompanyId: s.company_id, Id: s.id, ServiceId: s.service_id, ArticleId: s.article_id })),
    ServiceIds: services.map((s) => s.service_id),
    PriceSign: opt(a.price_sign),
    VAT: opt(a.vat),
    ValidDays: opt(a.valid_days),
    MaxQuantity: opt(a.max_quantity),
    SendNotification: bool(a.send_notification),
    NotificationEmail: audience === 'administrator' ? opt(a.notification_email) : undefined,
  } satisfies Answer<Schemas['ArticleResponse']>);

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

const toPayment = (p: PaymentView) =>
  ({ Id: p.id, Amount: opt(p.amount), AmountCredited: opt(p.amount_credited), CurrencyId: opt(p.currency_id), Comments: opt(p.comments), Created: p.created, Updated: p.updated } satisfies Answer<Schemas['PaymentLogResponse']>);

/**
 * The code as `audience` may see it. The public view never carries who bought, paid with
 * or handled the code (Customers, Transactions, PaymentLog, PersonalNote, CreatedBy,
 * UpdatedBy, the article's NotificationEmail), whatever `include` asks for: the guarantee
 * lives here, not in what the caller chose to load.
 */
export function toRebateCode(a: RebateCodeAggregate, include: Includes, audience: Audience): Schemas['RebateCodeResponse'] {
  const c = a.code;
  const full = audience === 'administrator';
  return ({
    Id: c.id,
    CompanyId: c.company_id,
    ValidFrom: c.valid_from,
    ValidTo: c.valid_to,
    FromTime: opt(c.from_time),
    ToTime: opt(c.to_time),
    CreatedBy: full ? opt(c.created_by) : undefined,
    UpdatedBy: full ? opt(c.updated_by) : undefined,
    Created: c.created,
    Updated: c.updated,
    PersonalNote: full ? opt(c.personal_note) : undefined,
    RebateCodeSign: c.sign,
    RebateCodeValue: c.value,
    RebateCodeTypeId: code(c.type_id),
    Name: opt(c.name),
    RebateCodeStatusId: code(c.status_id),
    StatusName: rebateCodeStatusName(c.status_id),
    MaxNumberOfUses: c.max_number_of_uses,
    MaxNumberOfUsesPerCustomer: c.max_number_of_uses_per_customer,
    NumberOfUsesUsed: c.number_of_uses_used,
    DaysOfWeek: include.daysOfWeek ? a.days.map(toDayOfWeek) : undefined,
    Services: include.services ? a.services.map(toService) : undefined,
    Article: a.article ? toArticle(a.article, audience) : undefined,
    Transactions: full ? a.transactions.map(toTransaction) : undefined,
    RemainingAmount: opt(c.remaining_amount),
    RemainingUsage: opt(c.remaining_usage),
    Customers: full && include.customers ? a.customers.map(toCustomer) : undefined,
    PaymentReceived: bool(c.payment_received),
    RebateCodeCurrencySign: opt(c.currency_sign),
    ActiveByStatus: activeByStatus(c.status_id),
    PriceSign: opt(c.price_sign),
    RebateCodeTypeName: rebateCodeTypeName(c.type_id),
    Company: a.company ? ({ SitePath: opt(a.company.site_path), PaymentProviderId: opt(a.company.payment_provider_id) } satisfies Answer<Schemas['RebateCodeCompanyResponse']>) : undefined,
    PaymentLog: full ? a.payments.map(toPayment) : undefined,
  } satisfies Answer<Schemas['RebateCodeResponse']>);
}
