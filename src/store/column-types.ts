/**
 * Value types of columns whose SQL type says less than the store means (the conventions are
 * in ./schema.ts). src/generated/db.ts imports them: scripts/db-column-types.ts decides
 * which column gets which, from the migrated database.
 */

/** 0 = false, 1 = true: INTEGER with a `CHECK (column IN (0, 1))`. */
export type Bool = 0 | 1;
/** ISO 8601 UTC date-time text, always from `toISOString()`. */
export type IsoDate = string;
/** Time of day `hh:mm:ss`. */
export type Timespan = string;
