/**
 * The demo data set's ids worth knowing, and what its rows show: company A's rows use 101…,
 * company B's 201…; global reference data uses 1….
 */

/** Studio Nova Hair & Spa, Stockholm (SEK). */
export const DEMO_COMPANY_A = '00000000-0000-4000-8000-00000000000a';
/** Fjord Padel & Gym, Oslo (NOK). */
export const DEMO_COMPANY_B = '00000000-0000-4000-8000-00000000000b';

export const DEMO_CUSTOMERS = {
  /** Anna Svensson (A): VIP; gift card GIFT500 and code VIP25 are hers. */
  annaA: '00000000-0000-4000-8000-0000000a0001',
  /** Erik Johansson (A): regular customer. */
  erikA: '00000000-0000-4000-8000-0000000a0002',
  /** Maria Lindqvist (A): company customer with invoice address. */
  mariaA: '00000000-0000-4000-8000-0000000a0003',
  /** Ola Nordmann (B). */
  olaB: '00000000-0000-4000-8000-0000000b0001',
} as const;

/** Ids worth knowing when trying the operations. */
export const DEMO_IDS = {
  /** DeleteResource: 409 without Force (Booked and Payed bookings); Force sets Active = false. */
  resourceWithBlockingBookings: 101,
  /** DeleteResource: deletable, its bookings are only Canceled / Unbooked. */
  resourceWithOnlyCanceledBookings: 102,
  /** DeleteResource: deletable, no bookings (has a time exception). */
  freeResource: 103,
  /** Company B's resource, for the "other company → 404" case. */
  resourceOfCompanyB: 201,
  /** DeleteTag: active tags of A; 104 is already inactive. */
  tags: { vip: 101, regular: 102, newsletter: 103, inactive: 104, memberB: 201 },
  /** DeleteCustomField: 101 DropDown with values and services, 102 TextBox, 201 of B. */
  customFields: { hairLengthDropDown: 101, allergiesTextBox: 102, membershipNumber: 103, companyB: 201 },
  /** CreateArticleRebateCode: 101 punch ticket, 102 value card, 103 gift card, 104 not convertible. */
  articles: { punchTicket: 101, valueCard: 102, giftCard: 103, product: 104, giftCardB: 201 },
  /** CreateMessageTemplate TypeId: 1/3/5 e-mail (Sender allowed), 2/4 SMS (160 characters). */
  messageTypes: { confirmationEmail: 1, confirmationSms: 2, reminderEmail: 3, reminderSms: 4, cancellationEmail: 5 },
  /** CreateResourceType: resources of A. */
  resourcesA: [101, 102, 103, 104],
  services: { haircut: 101, massage: 102, sauna: 103, colouring: 104, padel: 201, personalTraining: 202 },
  /** UpdateWebhookEndpoint ids (per company). */
  webhooks: { bookingsA: 'wh_bookings', rebatesA: 'wh_rebates', mainB: 'wh_main' },
} as const;

/** Rebate code signs (company A unless noted) and what each shows in GetRebateCodeBySign. */
export const DEMO_REBATE_CODES = {
  GIFT500: 'id 101: active gift card (type 5), value 500, remaining 350 after one -150 transaction; customer Anna',
  PUNCH10: 'id 102: punch ticket (type 3), 10 uses, 7 remaining; only for the sauna service 103',
  VALUE1000: 'id 103: value card (type 4), remaining 1000; from article 102',
  SUMMER2024: 'id 104: expired (status 3, validity ended ~300 days ago)',
  PAUSED10: 'id 105: inactive (status 2), otherwise valid 10 %',
  WEEKDAY20: 'id 106: 20 %, Monday–Friday 09:00–15:00 only',
  MASSAGE100: 'id 107: 100 kr off, only for the massage service 102',
  VIP25: 'id 108: 25 %, connected to customer Anna only, once per customer',
  FLASH30: 'id 109: status active but its period ended yesterday',
  FIRST50: 'id 110: all 50 uses used (MaxNumberOfUses reached)',
  Gift500: 'company B, id 201: gift card 500 NOK — same sign as A\'s GIFT500 in another company',
  PADEL2FOR1: 'company B, id 202: 50 % on padel (service 201)',
} as const;
