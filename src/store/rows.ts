/** Row → API value helpers, shared by every repository's mapping. */

/** SQL null becomes "absent": the API omits null and absent values alike. */
export const opt = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** INTEGER 0/1 → boolean. */
export const bool = (value: number | boolean | null | undefined): boolean => value === 1 || value === true;

/** INTEGER 0/1 or null → boolean or absent. */
export const optBool = (value: number | boolean | null | undefined): boolean | undefined =>
  value === null || value === undefined ? undefined : bool(value);

/** Drops the properties whose value is undefined or null. */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) out[key] = item;
  return out as T;
}
