import type { DemoClock } from './clock.js';
import { DEMO_COMPANY_A as A, DEMO_COMPANY_B as B, DEMO_CUSTOMERS as C } from './ids.js';

/** Resources, their time exceptions and bookings, and resource types. */
export function resourcesAndBookings({ on }: DemoClock) {
  return {
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
  };
}
