import type { Store } from './db.js';
import { importData, type ImportSummary } from './import.js';

/**
 * The demo data set `npm start` loads into an empty store: two companies whose data lets
 * every one of the thirteen operations be tried at once. Dates are relative to the moment
 * the set is built (bookings ahead, codes valid now, MCP usage inside and outside the
 * 30-day window), so the demo stays meaningful whenever it is loaded.
 *
 * Ids: company A's rows use 101…, company B's 201…; global reference data uses 1….
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

const DAY = 24 * 60 * 60 * 1000;

/** The demo data set as an import file, with dates relative to `now`. */
export function buildDemoData(now: Date = new Date()) {
  const A = DEMO_COMPANY_A;
  const B = DEMO_COMPANY_B;
  const C = DEMO_CUSTOMERS;
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  /** `days` from today (UTC) at hh:mm UTC. */
  const on = (days: number, hh = 0, mm = 0) => new Date(midnight + days * DAY + (hh * 60 + mm) * 60000).toISOString();
  /** Exactly `days` before now, for the rolling MCP window. */
  const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  const validNow = { ValidFrom: on(-30), ValidTo: on(335, 23, 59) };

  return {
    Categories: [
      { Id: 1, Name: 'Hair salon', NormalizedName: 'hair-salon', Active: true },
      { Id: 2, Name: 'Beauty & spa', NormalizedName: 'beauty-spa', Active: true },
      { Id: 3, Name: 'Massage & health', NormalizedName: 'massage-health', Active: true },
      { Id: 4, Name: 'Gym & training', NormalizedName: 'gym-training', Active: true },
      { Id: 5, Name: 'Padel & tennis', NormalizedName: 'padel-tennis', Active: true },
      { Id: 6, Name: 'Restaurant', NormalizedName: 'restaurant', Active: false },
    ],
    BillingMethods: [
      { Id: 1, Name: 'Invoice', Description: 'Invoice by e-mail, 14 days net', Countries: ['SE', 'NO', 'DK', 'FI'] },
      { Id: 2, Name: 'Card', Description: 'Visa and Mastercard', Countries: ['SE', 'NO', 'DK', 'FI'] },
      { Id: 3, Name: 'Swish', Description: 'Swedish mobile payment', Countries: ['SE'] },
      { Id: 4, Name: 'Vipps', Description: 'Norwegian mobile payment', Countries: ['NO'] },
      { Id: 5, Name: 'MobilePay', Description: 'Danish and Finnish mobile payment', Countries: ['DK', 'FI'] },
    ],
    MessageTypes: [
      { Id: 1, Name: 'Booking confirmation (e-mail)', Description: 'Sent when a booking is made', MaxCharacters: 4000, DefaultText: 'Manage your booking from the link in this message.', SendMethodId: 1 },
      { Id: 2, Name: 'Booking confirmation (SMS)', Description: 'Sent when a booking is made', MaxCharacters: 160, DefaultText: '', SendMethodId: 2 },
      { Id: 3, Name: 'Booking reminder (e-mail)', Description: 'Sent the day before', MaxCharacters: 4000, DefaultText: 'Welcome!', SendMethodId: 1 },
      { Id: 4, Name: 'Booking reminder (SMS)', Description: 'Sent the day before', MaxCharacters: 160, DefaultText: '', SendMethodId: 2 },
      { Id: 5, Name: 'Cancellation (e-mail)', Description: 'Sent when a booking is canceled', MaxCharacters: 4000, DefaultText: '', SendMethodId: 1 },
    ],
    Companies: [
      { Id: A, Name: 'Studio Nova Hair & Spa', SitePath: 'studio-nova', PaymentProviderId: 1, CategoryIds: [1, 2, 3], Created: on(-400) },
      // B has its own MCP limit and has used more than it within the window.
      { Id: B, Name: 'Fjord Padel & Gym', SitePath: 'fjord-padel', PaymentProviderId: 2, McpTokenLimit: 50000, CategoryIds: [4, 5], Created: on(-200) },
    ],
    Services: [
      { CompanyId: A, Id: 101, Name: 'Haircut', Description: 'Wash, cut and style, 45 min', ImageUrl: 'https://images.example.com/studio-nova/haircut.jpg', Active: true },
      { CompanyId: A, Id: 102, Name: 'Massage 60 min', Description: 'Classic Swedish massage', ImageUrl: 'https://images.example.com/studio-nova/massage.jpg', Active: true },
      { CompanyId: A, Id: 103, Name: 'Sauna & spa', Description: 'Two hours in the spa area', ImageUrl: 'https://images.example.com/studio-nova/sauna.jpg', Active: true },
      { CompanyId: A, Id: 104, Name: 'Colouring', Description: 'Not offered this season', Active: false },
      { CompanyId: B, Id: 201, Name: 'Padel court 60 min', Description: 'Indoor court', ImageUrl: 'https://images.example.com/fjord/padel.jpg', Active: true },
      { CompanyId: B, Id: 202, Name: 'Personal training', Description: 'One-to-one session', Active: true },
    ],
    Tags: [
      { CompanyId: A, Id: 101, Name: 'VIP', Scope: 1, Color: '#d4af37', SortOrder: 1, Active: true, CreatedDate: on(-300) },
      { CompanyId: A, Id: 102, Name: 'Regular', Scope: 1, Color: '#2e86de', SortOrder: 2, Active: true, CreatedDate: on(-300) },
      { CompanyId: A, Id: 103, Name: 'Newsletter', Scope: 1, Color: '#27ae60', SortOrder: 3, Active: true, CreatedDate: on(-250) },
      { CompanyId: A, Id: 104, Name: 'Summer campaign', Scope: 1, Color: '#95a5a6', SortOrder: 4, Active: false, CreatedDate: on(-500) },
      { CompanyId: B, Id: 201, Name: 'Member', Scope: 1, Color: '#1abc9c', SortOrder: 1, Active: true, CreatedDate: on(-150) },
    ],
    Customers: [
      { CompanyId: A, Id: C.annaA, Firstname: 'Anna', Lastname: 'Svensson', Email: 'anna.svensson@example.com', Phone: '+46701234567', InvoiceAddress1: 'Storgatan 1', InvoiceCity: 'Stockholm', InvoicePostalCode: '11122', InvoiceCountryCode: 'SE', SubscribedToNewsletter: true, TagIds: [101, 103], Created: on(-300) },
      { CompanyId: A, Id: C.erikA, Firstname: 'Erik', Lastname: 'Johansson', Email: 'erik.johansson@example.com', Phone: '+46709876543', TagIds: [102], Created: on(-200) },
      { CompanyId: A, Id: C.mariaA, Firstname: 'Maria', Lastname: 'Lindqvist', Email: 'maria.lindqvist@example.com', Phone: '+46705550123', CorporateIdentityNumber: '556677-8899', InvoiceAddress1: 'Lindqvist Konsult AB', InvoiceAddress2: 'Box 123', InvoiceCity: 'Uppsala', InvoicePostalCode: '75101', InvoiceCountryCode: 'SE', Created: on(-100) },
      { CompanyId: B, Id: C.olaB, Firstname: 'Ola', Lastname: 'Nordmann', Email: 'ola.nordmann@example.no', Phone: '+4791234567', InvoiceCountryCode: 'NO', TagIds: [201], Created: on(-120) },
    ],
    Resources: [
      { CompanyId: A, Id: 101, Name: 'Sara – stylist', Description: 'Senior stylist', Active: true, Color: '#e67e22', Email: 'sara@studionova.example', MobilePhone: '+46701112233', EmailNotification: true, SMSNotification: true, SendEmailReminder: true, SendSMSReminder: false, ResourceCategory: 2, Created: on(-380), Updated: on(-10) },
      { CompanyId: A, Id: 102, Name: 'Treatment room 2', Description: 'Massage room', Active: true, Color: '#8e44ad', EmailNotification: false, SMSNotification: false, ResourceCategory: 3, Created: on(-380), Updated: on(-40) },
      { CompanyId: A, Id: 103, Name: 'Sauna', Description: 'Finnish sauna, 8 seats', Active: true, Color: '#c0392b', EmailNotification: false, SMSNotification: false, ResourceCategory: 1, Created: on(-380), Updated: on(-380) },
      { CompanyId: A, Id: 104, Name: 'Spa entrance lock', Description: 'Code lock of the spa entrance', Active: true, Color: '#34495e', AccessGroup: 'spa-entrance', EmailNotification: false, SMSNotification: false, ResourceCategory: 4, RelayStartsBeforeMinutes: 15, Created: on(-90), Updated: on(-90) },
      { CompanyId: B, Id: 201, Name: 'Court 1', Active: true, Color: '#16a085', EmailNotification: false, SMSNotification: false, ResourceCategory: 1, Created: on(-190), Updated: on(-190) },
      { CompanyId: B, Id: 202, Name: 'Court 2', Active: true, Color: '#2980b9', EmailNotification: false, SMSNotification: false, ResourceCategory: 1, Created: on(-190), Updated: on(-190) },
    ],
    TimeExceptions: [
      { CompanyId: A, Id: 101, IsRecurring: true, IsBlock: true, ReasonText: 'Lunch break', ReasonTextPublic: 'Closed for lunch', From: on(1, 12), To: on(1, 13), ResourceIds: [101] },
      { CompanyId: A, Id: 102, IsRecurring: false, IsBlock: true, ReasonText: 'Heater service', ReasonTextPublic: 'Sauna closed for maintenance', From: on(7, 6), To: on(7, 18), ResourceIds: [103] },
      { CompanyId: A, Id: 103, IsRecurring: false, IsBlock: false, ReasonText: 'Staff training (bookable)', From: on(14, 8), To: on(14, 10), ResourceIds: [101, 102] },
      { CompanyId: B, Id: 201, IsRecurring: false, IsBlock: true, ReasonText: 'New turf', ReasonTextPublic: 'Court 2 closed', From: on(3, 6), To: on(5, 22), ResourceIds: [202] },
    ],
    Bookings: [
      { CompanyId: A, Id: 101, ServiceId: 101, From: on(2, 9), To: on(2, 9, 45), BookedSpots: 1, TotalSpots: 1, PauseAfterInMinutes: 15, StatusId: 1, CustomerId: C.annaA, ResourceIds: [101] },
      { CompanyId: A, Id: 102, ServiceId: 101, From: on(5, 13), To: on(5, 13, 45), BookedSpots: 1, TotalSpots: 1, PauseAfterInMinutes: 15, StatusId: 7, CustomerId: C.erikA, ResourceIds: [101] },
      { CompanyId: A, Id: 103, ServiceId: 102, From: on(1, 8), To: on(1, 9), BookedSpots: 1, TotalSpots: 1, PauseAfterInMinutes: 0, StatusId: 4, CustomerId: C.mariaA, ResourceIds: [102] },
      { CompanyId: A, Id: 104, ServiceId: 102, From: on(-7, 15), To: on(-7, 16), BookedSpots: 1, TotalSpots: 1, PauseAfterInMinutes: 0, StatusId: 2, CustomerId: C.annaA, ResourceIds: [102] },
      { CompanyId: B, Id: 201, ServiceId: 201, From: on(1, 17), To: on(1, 18), BookedSpots: 4, TotalSpots: 4, PauseAfterInMinutes: 0, StatusId: 1, CustomerId: C.olaB, ResourceIds: [201] },
    ],
    ResourceTypes: [
      { CompanyId: A, Id: 101, Name: 'Stylists', Description: 'Any available stylist', Active: true, Resources: [{ Id: 101, Priority: 1 }], Created: on(-380), Updated: on(-380) },
      { CompanyId: A, Id: 102, Name: 'Treatment rooms', Description: 'Rooms for massage and spa', Active: true, Resources: [{ Id: 102, Priority: 1 }, { Id: 103, Priority: 2 }], Created: on(-380), Updated: on(-60) },
      { CompanyId: B, Id: 201, Name: 'Padel courts', Description: 'A random free court is chosen', Active: true, Resources: [{ Id: 201 }, { Id: 202 }], Created: on(-190), Updated: on(-190) },
    ],
    CustomFields: [
      {
        CompanyId: A, Id: 101, FieldId: 1, Name: 'Hair length', Width: 200, Column: 'TextField1', Description: 'Helps us plan the time', DataType: 'DropDown',
        DefaultValue: 'Medium', IsMandatory: true, MandatoryErrorMessage: 'Please choose your hair length', MaxLength: 20, MultipleLineText: false,
        IsPublic: true, IsHidden: false, SortOrder: 1, Table: 'Booking',
        Values: [
          { Id: 101, Active: true, SortOrder: 1, Value: 'Short' },
          { Id: 102, Active: true, SortOrder: 2, Value: 'Medium' },
          { Id: 103, Active: true, SortOrder: 3, Value: 'Long' },
          { Id: 104, Active: false, SortOrder: 4, Value: 'Extra long' },
        ],
        ServiceIds: [101, 104],
      },
      {
        CompanyId: A, Id: 102, FieldId: 2, Name: 'Allergies', Width: 400, Column: 'TextField2', Description: 'Oils or products to avoid', DataType: 'TextBox',
        IsMandatory: false, MaxLength: 500, MultipleLineText: true, IsPublic: true, IsHidden: false, SortOrder: 2, Table: 'Booking', ServiceIds: [102, 103],
      },
      {
        CompanyId: A, Id: 103, FieldId: 3, Name: 'Membership number', Width: 120, Column: 'TextField3', DataType: 'TextBox', IsMandatory: false, MaxLength: 6,
        RegEx: '^[0-9]{6}$', RegExErrorMessage: 'Six digits', IsPublic: false, IsHidden: true, SortOrder: 3, Table: 'Customer',
      },
      {
        CompanyId: B, Id: 201, FieldId: 1, Name: 'Racket rental', DataType: 'DropDown', IsMandatory: false, IsPublic: true, IsHidden: false, SortOrder: 1, Table: 'Booking',
        Values: [{ Id: 201, Value: 'No' }, { Id: 202, Value: 'Yes, one' }, { Id: 203, Value: 'Yes, two' }],
        ServiceIds: [201],
      },
    ],
    Articles: [
      { CompanyId: A, Id: 101, Name: '10-visit sauna card', ArticleTypeId: 3, Description: 'Ten sauna visits', Active: true, Amount: 10, Price: 1200, CurrencyId: 'SEK', PriceSign: 'kr', VAT: 0.25, SortOrder: 1, ValidDays: 365, MaxQuantity: 5, ServiceIds: [103], CreatedDate: on(-200), UpdatedDate: on(-200) },
      { CompanyId: A, Id: 102, Name: 'Value card 1 000 kr', ArticleTypeId: 4, Description: 'Use for any haircut or massage', Active: true, Price: 1000, CurrencyId: 'SEK', PriceSign: 'kr', VAT: 0.25, SortOrder: 2, ValidDays: 365, MaxQuantity: 10, ServiceIds: [101, 102], CreatedDate: on(-200), UpdatedDate: on(-200) },
      { CompanyId: A, Id: 103, Name: 'Gift card 500 kr', ArticleTypeId: 5, Description: 'A gift for someone special', ImageUrl: 'https://images.example.com/studio-nova/giftcard.jpg', Active: true, Price: 500, CurrencyId: 'SEK', PriceSign: 'kr', VAT: 0, SortOrder: 3, ValidDays: 365, MaxQuantity: 10, SendNotification: true, NotificationEmail: 'kassa@studionova.example', ServiceIds: [101, 102, 103], CreatedDate: on(-200), UpdatedDate: on(-20) },
      { CompanyId: A, Id: 104, Name: 'Styling wax', ArticleTypeId: 1, Description: 'A product, not a card: cannot become a rebate code', Active: true, Price: 199, CurrencyId: 'SEK', PriceSign: 'kr', VAT: 0.25, SortOrder: 4, CreatedDate: on(-100), UpdatedDate: on(-100) },
      { CompanyId: B, Id: 201, Name: 'Gift card 500 NOK', ArticleTypeId: 5, Active: true, Price: 500, CurrencyId: 'NOK', PriceSign: 'kr', VAT: 0, SortOrder: 1, ValidDays: 730, ServiceIds: [201, 202], CreatedDate: on(-150), UpdatedDate: on(-150) },
    ],
    RebateCodes: [
      {
        CompanyId: A, Id: 101, RebateCodeSign: 'GIFT500', Name: 'Gift card 500 kr', RebateCodeTypeId: 5, RebateCodeValue: 500, RebateCodeStatusId: 1, ...validNow,
        ArticleId: 103, PaymentReceived: true, RemainingAmount: 350, RebateCodeCurrencySign: 'SEK', PriceSign: 'kr', CustomerIds: [C.annaA],
        PersonalNote: 'Happy birthday, Anna!', CreatedBy: 'kassa@studionova.example',
        Receiver: { CustomerId: C.annaA, Firstname: 'Anna', Lastname: 'Svensson', Email: 'anna.svensson@example.com', ReceiverMessage: 'Enjoy a day at the spa!' },
        Transactions: [{ Id: 101, Amount: -150, Usage: 0, BookingId: 101, Note: 'Part payment of haircut', CustomerId: C.annaA, ServiceId: 101, CreatedDate: on(-3, 10) }],
        PaymentLog: [{ Id: 101, Amount: 500, AmountCredited: 0, CurrencyId: 'SEK', Comments: 'Paid by card in the salon', Created: on(-30, 11) }],
      },
      {
        CompanyId: A, Id: 102, RebateCodeSign: 'PUNCH10', Name: '10-visit sauna card', RebateCodeTypeId: 3, RebateCodeValue: 10, RebateCodeStatusId: 1, ...validNow,
        ArticleId: 101, PaymentReceived: true, RemainingUsage: 7, NumberOfUsesUsed: 3, ServiceIds: [103], CustomerIds: [C.erikA], PriceSign: 'kr',
        Transactions: [1, 2, 3].map((n) => ({ Id: 101 + n, Amount: 0, Usage: -1, Note: `Sauna visit ${n}`, CustomerId: C.erikA, ServiceId: 103, CreatedDate: on(-20 + n * 5, 17) })),
        PaymentLog: [{ Id: 102, Amount: 1200, AmountCredited: 0, CurrencyId: 'SEK', Comments: 'Swish', Created: on(-25, 9) }],
      },
      { CompanyId: A, Id: 103, RebateCodeSign: 'VALUE1000', Name: 'Value card 1 000 kr', RebateCodeTypeId: 4, RebateCodeValue: 1000, RebateCodeStatusId: 1, ...validNow, ArticleId: 102, PaymentReceived: false, RebateCodeCurrencySign: 'SEK', PriceSign: 'kr', ServiceIds: [101, 102] },
      { CompanyId: A, Id: 104, RebateCodeSign: 'SUMMER2024', Name: 'Summer campaign', RebateCodeTypeId: 1, RebateCodeValue: 15, RebateCodeStatusId: 3, ValidFrom: on(-400), ValidTo: on(-300, 23, 59), MaxNumberOfUses: 100, NumberOfUsesUsed: 42 },
      { CompanyId: A, Id: 105, RebateCodeSign: 'PAUSED10', Name: 'Paused campaign', RebateCodeTypeId: 1, RebateCodeValue: 10, RebateCodeStatusId: 2, ...validNow },
      { CompanyId: A, Id: 106, RebateCodeSign: 'WEEKDAY20', Name: 'Weekday daytime', RebateCodeTypeId: 1, RebateCodeValue: 20, RebateCodeStatusId: 1, ...validNow, DaysOfWeek: [1, 2, 3, 4, 5], FromTime: '09:00:00', ToTime: '15:00:00' },
      { CompanyId: A, Id: 107, RebateCodeSign: 'MASSAGE100', Name: '100 kr off massage', RebateCodeTypeId: 2, RebateCodeValue: 100, RebateCodeStatusId: 1, ...validNow, ServiceIds: [102], PriceSign: 'kr' },
      { CompanyId: A, Id: 108, RebateCodeSign: 'VIP25', Name: 'VIP thank you', RebateCodeTypeId: 1, RebateCodeValue: 25, RebateCodeStatusId: 1, ...validNow, CustomerIds: [C.annaA], MaxNumberOfUses: 50, MaxNumberOfUsesPerCustomer: 1 },
      { CompanyId: A, Id: 109, RebateCodeSign: 'FLASH30', Name: 'Flash sale', RebateCodeTypeId: 1, RebateCodeValue: 30, RebateCodeStatusId: 1, ValidFrom: on(-8), ValidTo: on(-1, 23, 59) },
      { CompanyId: A, Id: 110, RebateCodeSign: 'FIRST50', Name: 'First 50 customers', RebateCodeTypeId: 1, RebateCodeValue: 10, RebateCodeStatusId: 1, ...validNow, MaxNumberOfUses: 50, NumberOfUsesUsed: 50 },
      { CompanyId: B, Id: 201, RebateCodeSign: 'Gift500', Name: 'Gift card 500 NOK', RebateCodeTypeId: 5, RebateCodeValue: 500, RebateCodeStatusId: 1, ...validNow, ArticleId: 201, PaymentReceived: true, RebateCodeCurrencySign: 'NOK', PriceSign: 'kr', CustomerIds: [C.olaB] },
      { CompanyId: B, Id: 202, RebateCodeSign: 'PADEL2FOR1', Name: 'Two for one', RebateCodeTypeId: 1, RebateCodeValue: 50, RebateCodeStatusId: 1, ...validNow, ServiceIds: [201], DaysOfWeek: [6, 7] },
    ],
    Printouts: [...printoutLayouts(A, 101, 30), ...printoutLayouts(B, 201, 3)],
    MessageTemplates: [
      { CompanyId: A, Id: 101, TypeId: 1, Name: 'Bokningsbekräftelse', Title: 'Tack för din bokning', Body: 'Hej {Firstname}!\n\nVi ser fram emot ditt besök {From}.\n\nVälkommen till Studio Nova!', Sender: 'bokning@studionova.example', Language: 'sv', Default: true, Created: on(-300) },
      { CompanyId: A, Id: 102, TypeId: 1, Name: 'Booking confirmation', Title: 'Thank you for your booking', Body: 'Hi {Firstname},\n\nSee you {From}.\n\nStudio Nova', Sender: 'booking@studionova.example', Language: 'en', Default: false, Created: on(-300) },
      { CompanyId: A, Id: 103, TypeId: 4, Name: 'SMS-påminnelse', Title: 'Påminnelse', Body: 'Hej {Firstname}! Påminnelse om din tid {From} hos Studio Nova. Avboka senast 24 h innan.', Language: 'sv', Default: true, ServiceIds: [101, 102], Created: on(-200) },
      { CompanyId: B, Id: 201, TypeId: 2, Name: 'SMS confirmation', Title: 'Booked', Body: 'Hi {Firstname}, court booked {From}. Fjord Padel & Gym', Language: 'en', Default: true, ServiceIds: [201], Created: on(-150) },
    ],
    WebhookEndpoints: [
      // Secret left out: the import generates a whsec_ secret.
      { CompanyId: A, Id: 'wh_bookings', Url: 'https://hooks.studionova.example/bookings', Description: 'Booking events to the POS', EventTypes: ['booking.created', 'booking.canceled'], Disabled: false, Created: on(-60), Updated: on(-60) },
      { CompanyId: A, Id: 'wh_rebates', Url: 'https://hooks.studionova.example/rebates', Description: 'Gift card sales to accounting (paused)', EventTypes: ['rebatecode.created', 'rebatecode.transaction.created'], Disabled: true, Secret: 'whsec_c3R1ZGlvLW5vdmEtZGVtby1yZWJhdGVzLXNlY3JldA', Created: on(-90), Updated: on(-5) },
      { CompanyId: B, Id: 'wh_main', Url: 'https://example.no/fjord/webhooks', EventTypes: ['booking.created'], Disabled: false, Created: on(-100), Updated: on(-100) },
    ],
    McpUsage: [
      // A: 95 000 tokens in the last 30 days (limit 1 000 000 by default), 700 000 before.
      { CompanyId: A, TokensUsed: 12000, At: ago(1) },
      { CompanyId: A, TokensUsed: 45000, At: ago(3) },
      { CompanyId: A, TokensUsed: 30000, At: ago(10) },
      { CompanyId: A, TokensUsed: 8000, At: ago(29) },
      { CompanyId: A, TokensUsed: 200000, At: ago(31) },
      { CompanyId: A, TokensUsed: 500000, At: ago(60) },
      // B: 55 000 in the window against its own limit of 50 000 → over budget, 0 remaining.
      { CompanyId: B, TokensUsed: 30000, At: ago(2) },
      { CompanyId: B, TokensUsed: 25000, At: ago(5) },
      { CompanyId: B, TokensUsed: 90000, At: ago(45) },
    ],
  };
}

/** `count` printout layouts with ids from `firstId`, so BookingPrintoutQuery paging has pages. */
function printoutLayouts(companyId: string, firstId: number, count: number) {
  const kinds = ['Day sheet', 'Week overview', 'Customer list', 'Receipt', 'Resource schedule', 'Check-in list', 'Invoice basis', 'Gift card print', 'Staff roster', 'Cleaning list'];
  const formats = ['A4 portrait', 'A4 landscape', '80 mm receipt'];
  return Array.from({ length: count }, (_, i) => ({
    CompanyId: companyId,
    Id: firstId + i,
    Name: `${kinds[i % kinds.length]} – ${formats[Math.floor(i / kinds.length) % formats.length]}`,
    HeaderLeftCell: '{CompanyName}',
    HeaderMiddleCell: kinds[i % kinds.length],
    HeaderRightCell: '{Date}',
    BodyCell: i % 2 === 0 ? '{BookingTable}' : '{Time} {Customer} {Service} {Resource}',
    FooterLeftCell: '{PrintedBy}',
    FooterMiddleCell: '',
    FooterRightCell: 'Page {Page} of {Pages}',
  }));
}

/** The demo data set as built when this module was loaded. */
export const demoData = buildDemoData();

/** Imports the demo data set (dates relative to `now`) into the store. */
export async function loadDemoData(store: Store, now: Date = new Date()): Promise<ImportSummary> {
  return importData(store, buildDemoData(now), { now });
}
