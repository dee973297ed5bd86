/** Row → API value helpers, shared by every area's row → answer mapping. */

/** INTEGER 0/1 → boolean. */
export const bool = (value: number | boolean | null | undefined): boolean => value === 1 || value === true;

/** INTEGER 0/1 or null → boolean or absent. */
export const optBool = (value: number | boolean | null | undefined): boolean | undefined =>
  value === null || value === undefined ? undefined : bool(value);

/**
 * SQL null as absent. The API omits null values, and its serializers (fast-json-stringify for
 * JSON, the CSV writer) skip absent ones: a mapper that writes `opt(column)` builds its answer
 * in one pass, with no `compact` over it afterwards.
 */
export const opt = <V>(value: V | null): V | undefined => (value === null ? undefined : value);

/** An answer of type T as a mapper builds it: no field is null (opt makes a SQL null absent). */
export type Answer<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * A stored code as the contract's integer enum it carries (RebateCodeType, BookingStatusId,
 * …): each such column has a CHECK constraint holding it to the enum's values, so the
 * store's `number` is narrowed here, once, rather than checked again per row.
 */
export const code = <E extends number | null | undefined>(value: number | null): E => value as E;
