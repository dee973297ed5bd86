import type { DemoClock } from './clock.js';
import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B } from './ids.js';

/** Printout layouts, message templates, webhook endpoints and MCP usage. */
export function messagesWebhooksUsage({ on, ago }: DemoClock) {
  return {
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
      { CompanyId: A, Id: 'wh_rebates', Url: 'https://hooks.studionova.example/rebates', Description: 'Gift card sales to accounting (paused)', EventTypes: ['rebatecode.created', 'rebatecode.transaction.created'], Disabled: true, Secret: 'whsec_c3R1ZGlvLW5vdmEtZGVtby1yZWJhdGVzLXNlY3JldA==', Created: on(-90), Updated: on(-5) },
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
