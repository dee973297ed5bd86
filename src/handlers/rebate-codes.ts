import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { differenceComment, differingDetails, type CustomerDetails } from '../domain/rebate-code-customer.js';
import { rebateCodeFromArticle } from '../domain/rebate-code-from-article.js';
import { rebateCodeAudience } from '../domain/rebate-code-privacy.js';
import { withUniqueSign } from '../domain/rebate-code-sign.js';
import { validityFailures } from '../domain/rebate-codes.js';
import { label, notEmpty, notFound, notOfCompany, refuseAny, refused } from '../domain/refusals.js';
import { customersRepository, type CustomerRow } from '../store/repositories/customers.js';
import { rebateCodesRepository, type RebateCodeAggregate } from '../store/repositories/rebate-codes.js';
import { bool } from '../store/prepared.js';
import type { Database } from '../store/schema.js';
import { rebateCodeSignKey } from '../store/sign-key.js';
import { toFacts } from './rebate-code-transactions.js';
import { INCLUDE_ALL, toCustomerDetails, toRebateCode } from './rebate-codes.mappers.js';
import type { BodyOf, HandlersOf } from './types.js';

type Purchase = BodyOf<'CreateArticleRebateCode'>;

/**
 * The buyer as the code's customer, inside the purchase's transaction: a customer named by
 * CustomerId, else the profile with the same e-mail, else a new profile. An existing profile
 * is never changed; details that differ are appended to its comments. Answers the profile,
 * or undefined when the request has no Customer.
 */
async function buyer(tx: { db: Kysely<Database> }, companyId: string, body: Purchase, now: Date): Promise<CustomerRow | undefined> {
  const given = body.Customer;
  if (!given) return undefined;
  const customers = customersRepository(tx);
  const supplied: CustomerDetails = { ...given, ...body.InvoiceAddress };
  const email = given.Email?.trim();
  let existing;
  if (given.CustomerId) {
    existing = await customers.findById(companyId, given.CustomerId);
    if (!existing) throw refused(notOfCompany('InvalidCustomerId', 'Customer.CustomerId', 'a customer'));
  } else if (!email) {
    throw refused(notEmpty('Customer.Email', `no ${label('CustomerId')} is given`));
  } else {
    existing = await customers.findByEmailForUpdate(companyId, email);
  }
  if (existing) {
    const line = differenceComment(differingDetails(toCustomerDetails(existing), supplied), now);
    if (line) await customers.appendComment(companyId, existing.id, line);
    return existing;
  }
  const address = body.InvoiceAddress ?? {};
  return customers.insert({
    id: randomUUID(), company_id: companyId, email: email!, firstname: given.Firstname, lastname: given.Lastname, phone: given.Phone,
    personal_identity_number: given.PersonalIdentityNumber, corporate_identity_number: address.CorporateIdentityNumber,
    invoice_address1: address.InvoiceAddress1, invoice_address2: address.InvoiceAddress2, invoice_city: address.InvoiceCity,
    invoice_postal_code: address.InvoicePostalCode, invoice_country_code: address.InvoiceCountryCode,
    subscribed_to_newsletter: given.SubscribedToNewsletter ? 1 : 0, created: now.toISOString(),
  });
}

export const rebateCodeHandlers: HandlersOf<'CreateArticleRebateCode' | 'GetRebateCodeBySign'> = {
  /**
   * The answer is built from what the purchase read and wrote (the article, its services
   * and company; the inserted code and buyer), not read back: a new code has no weekdays,
   * transactions or payments yet.
   */
  async CreateArticleRebateCode({ body, companyId: company, caller, store, generateSign }) {
    const found = await rebateCodesRepository(store).findArticle(company, body.ArticleId);
    if (!found) throw notFound(`Article ${body.ArticleId} not found.`);
    const { article } = found.article;
    const now = new Date();
    const mapped = rebateCodeFromArticle(
      { id: article.id, articleTypeId: article.article_type_id, active: bool(article.active), price: article.price, amount: article.amount, validDays: article.valid_days },
      now,
    );
    if (mapped.failure) throw refused(mapped.failure);
    const v = mapped.values;
    const receiver = body.Receiver;
    if (receiver?.CustomerId && !(await customersRepository(store).findById(company, receiver.CustomerId))) {
      throw refused(notOfCompany('InvalidCustomerId', 'Receiver.CustomerId', 'a customer'));
    }
    const customer = await buyer(store, company, body, now);
    const codes = rebateCodesRepository(store);
    // A sign the company has already is skipped by the insert, not refused: the next one is tried in this transaction.
    const code = await withUniqueSign(
      (sign) =>
        codes.insert(
          {
            company_id: company, sign, sign_key: rebateCodeSignKey(sign), type_id: v.typeId, value: v.value, status_id: 1,
            name: article.name, valid_from: v.validFrom, valid_to: v.validTo, remaining_amount: v.remainingAmount,
            remaining_usage: v.remainingUsage, article_id: article.id, currency_sign: article.price_sign,
            price_sign: article.price_sign, created_by: caller?.sub ?? null, created: now.toISOString(), updated: now.toISOString(),
            receiver_customer_id: receiver?.CustomerId?.toLowerCase() ?? null, receiver_firstname: receiver?.Firstname ?? null,
            receiver_lastname: receiver?.Lastname ?? null, receiver_email: receiver?.Email ?? null, receiver_message: receiver?.ReceiverMessage ?? null,
          },
          found.services.map((s) => s.id),
          customer ? [customer.id] : [],
        ),
      generateSign,
    );
    const aggregate: RebateCodeAggregate = {
      code, days: [], services: found.services, customers: customer ? [customer] : [], transactions: [], payments: [],
      article: found.article, company: found.company,
    };
    return toRebateCode(aggregate, INCLUDE_ALL, rebateCodeAudience(caller, company));
  },

  /**
   * Any company's code (x-any-company); 404 when unknown, 400 naming every rule that fails.
   * Only the code's own administrators see its whole record; the rules still use the
   * connected customers for everyone, but the answer carries them only to those. One
   * statement reads the code with everything the answer and the rules need.
   */
  async GetRebateCodeBySign({ query, companyId, caller, store }) {
    // The code is looked up in `companyId`, so that is the code's company.
    const audience = rebateCodeAudience(caller, companyId);
    const email = query.CustomerEmail?.trim() || undefined;
    const found = await rebateCodesRepository(store).loadBySign(companyId, query.RebateCodeSign, { withHistory: audience === 'administrator', customerEmail: email });
    if (!found) throw notFound(`Rebate code '${query.RebateCodeSign}' not found.`);
    const { aggregate, customerUses } = found;
    const at = query.Date ? new Date(query.Date) : new Date();
    const failures = validityFailures(toFacts(aggregate.code, aggregate), { at, serviceId: query.ServiceId, customerEmail: email, customerUses });
    refuseAny(failures);
    return toRebateCode(aggregate, {
      services: query.IncludeConnectedServices,
      daysOfWeek: query.IncludeConnectedDaysOfWeek === true,
      customers: query.IncludeConnectedCustomers === true,
    }, audience);
  },
};
