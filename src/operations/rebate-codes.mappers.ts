/**
 * Rows → API objects of the rebate codes area, in one place: RebateCodeResponse (with its
 * article, services, weekdays, customers, transactions and payment log) and
 * RebateCodeTransactionQueryResponse; and a stored code → the facts its rules read. SQL
 * nulls become absent fields. The public view (domain/rebate-code-privacy.ts) is applied
 * here, so no answer can skip it.
 */
import type { CustomerDetails } from '../domain/rebate-code-customer.js';
import type { Audience } from '../domain/rebate-code-privacy.js';
import { activeByStatus, rebateCodeStatusName, rebateCodeTypeName, WEEKDAYS } from '../domain/rebate-code-reference.js';
import type { RebateCodeFacts } from '../domain/rebate-codes.js';
import type { ArticleWithServices } from '../store/repositories/articles.js';
import type { PaymentView, RebateCodeAggregate, TransactionView } from '../store/repositories/rebate-codes.js';
import { bool, code, compact } from '../store/rows.js';
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
  compact<Schemas['RebateCodeServiceResponse']>({ Id: s.id, Name: s.name, Description: s.description, Active: bool(s.active) });

export const toCustomer = (c: Pick<Row<'customers'>, 'id' | 'firstname' | 'lastname' | 'email' | 'phone' | 'image_url'>) =>
  compact<Schemas['RebateCodeCustomerResponse']>({ Id: c.id, Firstname: c.firstname, Lastname: c.lastname, Email: c.email, Phone: c.phone, ImageUrl: c.image_url });

export const toDayOfWeek = (id: number): Schemas['DaysOfWeekResponse'] => {
  const day = WEEKDAYS[id - 1];
  return { Id: code(id), DayOfWeek: day.english, DayOfWeekTranslation: day.swedish, DayOfWeekActive: true, DayOfWeekSortOrder: id };
};

/** `audience` public: without NotificationEmail (a staff member's address). */
export const toArticle = ({ article: a, services }: ArticleWithServices, audience: Audience) =>
  compact<Schemas['ArticleResponse']>({
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
    NotificationEmail: audience === 'administrator' ? a.notification_email : undefined,
  });

/** Usage as signed text (`-1`, `2`), as the document types it. */
export const toTransaction = (t: TransactionView) =>
  compact<Schemas['RebateCodeTransactionQueryResponse']>({
    Id: t.id,
    CompanyId: t.company_id,
    Note: t.note,
    RebateCodeId: t.rebate_code_id, RebateCodeSign: t.code_sign,
    RebateCodeTypeId: code(t.code_type_id), RebateCodeTypeName: rebateCodeTypeName(t.code_type_id),
    Amount: t.amount,
    Usage: String(t.usage),
    BookingId: t.booking_id,
    UpdatedDate: t.updated_date, CreatedDate: t.created_date,
    Service:
      t.service_id === null || t.service_name === null
        ? undefined
        : toService({ id: t.service_id, name: t.service_name, description: t.service_description, active: t.service_active ?? 1 }),
    Customer:
      t.customer_id === null
        ? undefined
        : toCustomer({ id: t.customer_id, firstname: t.customer_firstname, lastname: t.customer_lastname, email: t.customer_email, phone: t.customer_phone, image_url: t.customer_image_url }),
    PriceSign: t.code_price_sign,
  });

const toPayment = (p: PaymentView) =>
  compact<Schemas['PaymentLogResponse']>({ Id: p.id, Amount: p.amount, AmountCredited: p.amount_credited, CurrencyId: p.currency_id, Comments: p.comments, Created: p.created, Updated: p.updated });

/**
 * The code as `audience` may see it. The public view never carries who bought, paid with
 * or handled the code (Customers, Transactions, PaymentLog, PersonalNote, CreatedBy,
 * UpdatedBy, the article's NotificationEmail), whatever `include` asks for: the guarantee
 * lives here, not in what the caller chose to load.
 */
export function toRebateCode(a: RebateCodeAggregate, include: Includes, audience: Audience): Schemas['RebateCodeResponse'] {
  const c = a.code;
  const full = audience === 'administrator';
  return compact<Schemas['RebateCodeResponse']>({
    Id: c.id,
    CompanyId: c.company_id,
    ValidFrom: c.valid_from,
    ValidTo: c.valid_to,
    FromTime: c.from_time,
    ToTime: c.to_time,
    CreatedBy: full ? c.created_by : undefined,
    UpdatedBy: full ? c.updated_by : undefined,
    Created: c.created,
    Updated: c.updated,
    PersonalNote: full ? c.personal_note : undefined,
    RebateCodeSign: c.sign,
    RebateCodeValue: c.value,
    RebateCodeTypeId: code(c.type_id),
    Name: c.name,
    RebateCodeStatusId: code(c.status_id),
    StatusName: rebateCodeStatusName(c.status_id),
    MaxNumberOfUses: c.max_number_of_uses,
    MaxNumberOfUsesPerCustomer: c.max_number_of_uses_per_customer,
    NumberOfUsesUsed: c.number_of_uses_used,
    DaysOfWeek: include.daysOfWeek ? a.days.map(toDayOfWeek) : undefined,
    Services: include.services ? a.services.map(toService) : undefined,
    Article: a.article ? toArticle(a.article, audience) : undefined,
    Transactions: full ? a.transactions.map(toTransaction) : undefined,
    RemainingAmount: c.remaining_amount,
    RemainingUsage: c.remaining_usage,
    Customers: full && include.customers ? a.customers.map(toCustomer) : undefined,
    PaymentReceived: bool(c.payment_received),
    RebateCodeCurrencySign: c.currency_sign,
    ActiveByStatus: activeByStatus(c.status_id),
    PriceSign: c.price_sign,
    RebateCodeTypeName: rebateCodeTypeName(c.type_id),
    Company: a.company ? compact<Schemas['RebateCodeCompanyResponse']>({ SitePath: a.company.site_path, PaymentProviderId: a.company.payment_provider_id }) : undefined,
    PaymentLog: full ? a.payments.map(toPayment) : undefined,
  });
}
