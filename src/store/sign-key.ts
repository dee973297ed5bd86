/**
 * The form in which rebate code signs are compared: signs are unique per company and
 * looked up regardless of case (and of stray surrounding spaces), so `rebate_codes.sign_key`
 * holds this and every lookup by sign must go through it too.
 */
export function rebateCodeSignKey(sign: string): string {
  return sign.trim().normalize('NFC').toUpperCase();
}
