import type { DemoClock } from './clock.js';
import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B, DEMO_CUSTOMERS as C } from './ids.js';

/** Services, tags and the customers tagged with them. */
export function servicesAndCustomers({ on }: DemoClock) {
  return {
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
  };
}
