import type { DemoClock } from './clock.js';
import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B } from './ids.js';

/** Reference data shared by every company, and the two companies. */
export function referenceData({ on }: DemoClock) {
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
  };
}
