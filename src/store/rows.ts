/** Row → API value helpers, shared by every area's row → answer mapping. */

/** INTEGER 0/1 → boolean. */
export const bool = (value: number | boolean | null | undefined): boolean => value === 1 || value === true;

/** INTEGER 0/1 or null → boolean or absent. */
export const optBool = (value: number | boolean | null | undefined): boolean | undefined =>
  value === null || value === undefined ? undefined : bool(value);

/**
 * What a mapper hands `compact` for an answer of type T: T's fields, where an optional one
 * may also be SQL null. A required field must be there, and not null.
 */
export type Nullable<T> = { [K in keyof T]: undefined extends T[K] ? T[K] | null : T[K] };

/**
 * The answer T with its null and undefined fields dropped (the API omits null and absent
 * values alike). Name T, `compact<Schemas['TagResponse']>({ … })`, so the compiler checks
 * every field against the contract's type.
 */
export function compact<T extends object>(value: Nullable<T>): T {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as (keyof T)[]) {
    const item = value[key];
    // Nullable<T> differs from T only by null on optional fields, and null is dropped here.
    if (item !== undefined && item !== null) out[key] = item as T[keyof T];
  }
  return out as T;
}

/**
 * A stored code as the contract's integer enum it carries (RebateCodeType, BookingStatusId,
 * …): each such column has a CHECK constraint holding it to the enum's values, so the
 * store's `number` is narrowed here, once, rather than checked again per row.
 */
export const code = <E extends number | null | undefined>(value: number | null): E => value as E;
