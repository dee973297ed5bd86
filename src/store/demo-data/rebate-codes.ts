import type { DemoClock } from './clock.js';
import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B, DEMO_CUSTOMERS as C } from './ids.js';

/** Articles and the rebate codes (see DEMO_REBATE_CODES), with transactions and payments. */
export function articlesAndRebateCodes({ on, validNow }: DemoClock) {
  return {
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
  };
}
