/**
 * The buyer of CreateArticleRebateCode. An existing customer profile is never changed by a
 * purchase (the contract: "its information is not changed; differing information
 * supplied is added as comments"): the details that differ go into the profile's comments
 * as one dated line, e.g.
 * `2026-11-21: Firstname 'Anna' (profile 'Ann'); Phone '0701' (profile empty)`.
 */

/** The details a buyer may supply, by their API names (Customer and InvoiceAddress fields). */
export const CUSTOMER_DETAIL_FIELDS = [
  'Email',
  'Firstname',
  'Lastname',
  'Phone',
  'PersonalIdentityNumber',
  'CorporateIdentityNumber',
  'InvoiceAddress1',
  'InvoiceAddress2',
  'InvoiceCity',
  'InvoicePostalCode',
  'InvoiceCountryCode',
] as const;

export type CustomerDetailField = (typeof CUSTOMER_DETAIL_FIELDS)[number];
export type CustomerDetails = Partial<Record<CustomerDetailField, string | null | undefined>>;

const clean = (value: string | null | undefined): string => (value ?? '').trim();
/** E-mail addresses are the same whatever their case (a profile is found by e-mail that way). */
const same = (field: CustomerDetailField, a: string, b: string): boolean =>
  field === 'Email' ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * One entry per supplied, non-blank detail that differs from the profile (compared after
 * trimming; a detail left out or blank says nothing and is not recorded).
 */
export function differingDetails(profile: CustomerDetails, supplied: CustomerDetails): string[] {
  return CUSTOMER_DETAIL_FIELDS.flatMap((field) => {
    const given = clean(supplied[field]);
    const known = clean(profile[field]);
    if (given === '' || same(field, given, known)) return [];
    return [`${field} '${given}' (profile ${known === '' ? 'empty' : `'${known}'`})`];
  });
}

/** The dated comment line (UTC date), or undefined when nothing differs. */
export function differenceComment(differences: readonly string[], now: Date): string | undefined {
  if (differences.length === 0) return undefined;
  return `${now.toISOString().slice(0, 10)}: ${differences.join('; ')}`;
}

/** Comments with a line appended (what the store does in SQL, atomically). */
export const appendComment = (comments: string | null | undefined, line: string): string =>
  comments ? `${comments}\n${line}` : line;
