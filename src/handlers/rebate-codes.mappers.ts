/**
 * Rows → API objects of the rebate codes area: RebateCodeResponse (with its article,
 * services, weekdays, customers, transactions and payment log; a transaction, a service and
 * a customer as rebate-code-transactions.ts maps them). SQL nulls become absent fields. The public view (domain/rebate-code-privacy.ts) is applied
 * here, so no answer can skip it.
 */
import type { CustomerDetails } from '../domain/rebate-code-customer.js';
import type { Audience } from '../domain/rebate-code-privacy.js';
import { activeByStatus, rebateCodeStatusName, rebateCodeTypeName, WEEKDAYS } from '../domain/rebate-codes.js';
import type { ArticleWithServices } from '../store/repositories/articles.js';
import type { PaymentView, RebateCodeAggregate } from '../store/repositories/rebate-codes.js';
import { bool, code, opt, type Answer } from '../store/prepared.js';
import type { Row } from '../store/schema.js';
import { toCustomer, toService, toTransaction } from './rebate-code-transactions.js';
import type { Schemas } from './types.js';

/** Which connected lists to fill; GetRebateCodeBySign's Include flags leave the others out. */
export interface Includes {
  services: boolean;
  daysOfWeek: boolean;
  customers: boolean;
}
export const INCLUDE_ALL: Includes = { services: true, daysOfWeek: true, customers: true };

/** A stored customer profile as the buyer's details compare with it. */
export const toCustomerDetails = (c: Row<'customers'>): CustomerDetails => ({
  Email: c.email, Firstname: c.firstname, Lastname: c.lastname, Phone: c.phone,
  PersonalIdentityNumber: c.personal_identity_number, CorporateIdentityNumber: c.corporate_identity_number,
  InvoiceAddress1: c.invoice_address1, InvoiceAddress2: c.invoice_address2, InvoiceCity: c.invoice_city,
  InvoicePostalCode: c.invoice_postal_code, InvoiceCountryCode: c.invoice_country_code,
});

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
