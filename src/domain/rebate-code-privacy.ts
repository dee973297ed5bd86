/**
 * Who may see a rebate code's private parts (who bought, paid with or handled it). The
 * answer's mapper (handlers/rebate-codes.mappers.ts) applies the decision to every
 * answer carrying a code, so none can skip it.
 */
import { SUPERADMIN, type Caller } from './caller.js';

export const ADMINISTRATOR_READ = 'bookingsupplier-administrator-read';
export const ADMINISTRATOR_WRITE = 'bookingsupplier-administrator-write';

/**
 * Who an answer carrying a rebate code is for. `administrator`: a superadmin, or a read or
 * write administrator of the code's own company; they see the whole record. Anyone else
 * (GetRebateCodeBySign lets any caller check any company's code) gets the `public` view.
 */
export type Audience = 'administrator' | 'public';

export function rebateCodeAudience(caller: Caller | undefined, codeCompanyId: string): Audience {
  if (!caller) return 'public';
  if (caller.roles.has(SUPERADMIN)) return 'administrator';
  const ownCompany = caller.companyId !== undefined && caller.companyId.toLowerCase() === codeCompanyId.toLowerCase();
  const administers = caller.roles.has(ADMINISTRATOR_READ) || caller.roles.has(ADMINISTRATOR_WRITE);
  return ownCompany && administers ? 'administrator' : 'public';
}
