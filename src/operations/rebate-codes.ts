import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { differenceComment, differingDetails, type CustomerDetails } from '../domain/rebate-code-customer.js';
import { rebateCodeFromArticle } from '../domain/rebate-code-from-article.js';
import { rebateCodeAudience } from '../domain/rebate-code-privacy.js';
import { withUniqueSign } from '../domain/rebate-code-sign.js';
import { insufficientBalance, planTransaction, type TransactionRequest } from '../domain/rebate-code-transactions.js';
import { validityFailures } from '../domain/rebate-codes.js';
import { label, notEmpty, notFound, notOfCompany, refuseAny, refused } from '../domain/refusals.js';
import { customersRepository } from '../store/repositories/customers.js';
import { isSignConflict, rebateCodesRepository, rebateCodeTransactionsRepository } from '../store/repositories/rebate-codes.js';
import { inTransaction } from '../store/transactions.js';
import { bool } from '../store/rows.js';
import type { Database } from '../store/schema.js';
import { rebateCodeSignKey } from '../store/sign-key.js';
import { INCLUDE_ALL, toCustomerDetails, toFacts, toRebateCode, toTransaction } from './rebate-codes.mappers.js';
import type { BodyOf, HandlersOf } from './types.js';

type Purchase = BodyOf<'CreateArticleRebateCode'>;

/**
 * The buyer as the code's customer, inside the purchase's transaction: a customer named by
 * CustomerId, else the profile with the same e-mail, else a new profile. An existing profile
 * is never changed; details that differ are appended to its comments. Answers the id, or
 * undefined when the request has no Customer.
 */
async function buyerId(tx: { db: Kysely<Database> }, companyId: string, body: Purchase, now: Date): Promise<string | undefined> {
  const buyer = body.Customer;
  if (!buyer) return undefined;
  const customers = customersRepository(tx);
  const supplied: CustomerDetails = { ...buyer, ...body.InvoiceAddress };
  const email = buyer.Email?.trim();
  let existing;
  if (buyer.CustomerId) {
    existing = await customers.findById(companyId, buyer.CustomerId);
    if (!existing) throw refused(notOfCompany('InvalidCustomerId', 'Customer.CustomerId', 'a customer'));
  } else if (!email) {
    throw refused(notEmpty('Customer.Email', `no ${label('CustomerId')} is given`));
  } else {
    existing = await customers.findByEmail(companyId, email);
  }
  if (existing) {
    const line = differenceComment(differingDetails(toCustomerDetails(existing), supplied), now);
    if (line) await customers.appendComment(companyId, existing.id, line);
    return existing.id;
  }
  const id = randomUUID();
  const address = body.InvoiceAddress ?? {};
  await customers.insert({
    id, company_id: companyId, email: email!, firstname: buyer.Firstname, lastname: buyer.Lastname, phone: buyer.Phone,
    personal_identity_number: buyer.PersonalIdentityNumber, corporate_identity_number: address.CorporateIdentityNumber,
    invoice_address1: address.InvoiceAddress1, invoice_address2: address.InvoiceAddress2, invoice_city: address.InvoiceCity,
    invoice_postal_code: address.InvoicePostalCode, invoice_country_code: address.InvoiceCountryCode,
    subscribed_to_newsletter: buyer.SubscribedToNewsletter ? 1 : 0, created: now.toISOString(),
  });
  return id;
}

export const rebateCodeHandlers: HandlersOf<'CreateArticleRebateCode' | 'GetRebateCodeBySign' | 'CreateRebateCodeTransaction'> = {
  async CreateArticleRebateCode({ body, companyId: company, caller, store }) {
    const codes = rebateCodesRepository(store);
    const found = await codes.articles.find(company, body.ArticleId);
    if (!found) throw notFound(`Article ${body.ArticleId} not found.`);
    const { article, services } = found;
    const now = new Date();
    const mapped = rebateCodeFromArticle(
      { id: article.id, articleTypeId: article.article_type_id, active: bool(article.active), price: article.price, amount: article.amount, validDays: article.valid_days },
      now,
    );
    if (mapped.failure) throw refused(mapped.failure);
    const v = mapped.values;
    const receiver = body.Receiver;
    // A new sign per attempt; a clash with the unique index rolls the whole purchase back.
    const id = await withUniqueSign(
      (sign) =>
        inTransaction(store, async (tx) => {
          if (receiver?.CustomerId && !(await customersRepository(tx).findById(company, receiver.CustomerId))) {
            throw refused(notOfCompany('InvalidCustomerId', 'Receiver.CustomerId', 'a customer'));
          }
          const customerId = await buyerId(tx, company, body, now);
          return rebateCodesRepository(tx).insert(
            {
              company_id: company, sign, sign_key: rebateCodeSignKey(sign), type_id: v.typeId, value: v.value, status_id: 1,
              name: article.name, valid_from: v.validFrom, valid_to: v.validTo, remaining_amount: v.remainingAmount,
              remaining_usage: v.remainingUsage, article_id: article.id, currency_sign: article.price_sign,
              price_sign: article.price_sign, created_by: caller?.sub ?? null, created: now.toISOString(), updated: now.toISOString(),
              receiver_customer_id: receiver?.CustomerId?.toLowerCase() ?? null, receiver_firstname: receiver?.Firstname ?? null,
              receiver_lastname: receiver?.Lastname ?? null, receiver_email: receiver?.Email ?? null, receiver_message: receiver?.ReceiverMessage ?? null,
            },
            services.map((s) => s.service_id),
            customerId ? [customerId] : [],
          );
        }),
      isSignConflict,
    );
    return toRebateCode(await codes.load((await codes.findById(company, id))!), INCLUDE_ALL, rebateCodeAudience(caller, company));
  },

  /**
   * Any company's code (x-any-company); 404 when unknown, 400 naming every rule that fails.
   * Only the code's own administrators see its whole record; the rules still use the
   * connected customers for everyone, but the answer carries them only to those.
   */
  async GetRebateCodeBySign({ query, companyId, caller, store }) {
    const codes = rebateCodesRepository(store);
    const code = await codes.findBySign(companyId, query.RebateCodeSign);
    if (!code) throw notFound(`Rebate code '${query.RebateCodeSign}' not found.`);
    const audience = rebateCodeAudience(caller, code.company_id);
    const loaded = await codes.load(code, audience === 'administrator');
    const email = query.CustomerEmail?.trim() || undefined;
    const customerUses = email && code.max_number_of_uses_per_customer > 0 ? await codes.countCustomerDecreases(code.id, email) : 0;
    const at = query.Date ? new Date(query.Date) : new Date();
    const failures = validityFailures(toFacts(code, loaded), { at, serviceId: query.ServiceId, customerEmail: email, customerUses });
    refuseAny(failures);
    return toRebateCode(loaded, {
      services: query.IncludeConnectedServices,
      daysOfWeek: query.IncludeConnectedDaysOfWeek === true,
      customers: query.IncludeConnectedCustomers === true,
    }, audience);
  },

  async CreateRebateCodeTransaction({ body, companyId: company, caller, store }) {
    const codes = rebateCodesRepository(store);
    const code = await codes.findById(company, body.RebateCodeId);
    if (!code) throw notFound(`Rebate code ${body.RebateCodeId} not found.`);
    const booking = body.BookingId == null ? undefined : await codes.transactions.booking(company, body.BookingId);
    if (body.BookingId != null && !booking) throw refused(notOfCompany('InvalidBookingId', 'BookingId', 'a booking'));
    const request: TransactionRequest = { amount: body.Amount, usage: body.Usage, changeType: body.ChangeType };
    const now = new Date();
    const at = now.toISOString();
    const planned = planTransaction(toFacts(code), request, now);
    if (planned.failure) throw refused(planned.failure);
    const { plan } = planned;
    // The conditional UPDATE and the transaction row commit together or not at all.
    const id = await inTransaction(store, async (tx) => {
      const transactions = rebateCodeTransactionsRepository(tx);
      if (!(await transactions.apply({ companyId: company, codeId: code.id, ...plan, at, by: caller?.sub ?? null }))) return undefined;
      return transactions.insert({
        company_id: company, rebate_code_id: code.id, amount: plan.amountDelta, usage: plan.usageDelta,
        booking_id: booking?.id ?? null, customer_id: booking?.customer_id ?? null, service_id: booking?.service_id ?? null,
        created_date: at, updated_date: at,
      });
    });
    if (id === undefined) {
      // Another transaction got there first: explain with the code as it is now.
      const current = await codes.findById(company, code.id);
      throw refused((current && planTransaction(toFacts(current), request, now).failure) || insufficientBalance(code.sign));
    }
    return { RebateCodeTransactionItem: toTransaction((await codes.transactions.find(company, id))!) };
  },
};
