/** Reference values of rebate codes (docs/decisions.md, "Reference values"). */

export const REBATE_CODE_TYPES = { 1: 'Percent', 2: 'Currency', 3: 'PunchTicket', 4: 'ValueCard', 5: 'GiftCard' } as const;
export const REBATE_CODE_STATUSES = { 1: 'Active', 2: 'Inactive', 3: 'Expired' } as const;
export const ACTIVE = 1;

export const rebateCodeTypeName = (typeId: number): string | undefined =>
  REBATE_CODE_TYPES[typeId as keyof typeof REBATE_CODE_TYPES];
export const rebateCodeStatusName = (statusId: number): string | undefined =>
  REBATE_CODE_STATUSES[statusId as keyof typeof REBATE_CODE_STATUSES];
/** ActiveByStatus: true for status 1 (Active) only. */
export const activeByStatus = (statusId: number): boolean => statusId === ACTIVE;

/** DaysOfWeek ids 1 Monday .. 7 Sunday, with the English and Swedish names. */
export const WEEKDAYS = [
  { id: 1, english: 'Monday', swedish: 'Måndag' },
  { id: 2, english: 'Tuesday', swedish: 'Tisdag' },
  { id: 3, english: 'Wednesday', swedish: 'Onsdag' },
  { id: 4, english: 'Thursday', swedish: 'Torsdag' },
  { id: 5, english: 'Friday', swedish: 'Fredag' },
  { id: 6, english: 'Saturday', swedish: 'Lördag' },
  { id: 7, english: 'Sunday', swedish: 'Söndag' },
] as const;
