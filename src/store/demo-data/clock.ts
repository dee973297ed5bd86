const DAY = 24 * 60 * 60 * 1000;

/**
 * Dates relative to the moment the demo data set is built (bookings ahead, codes valid now,
 * MCP usage inside and outside the 30-day window), so the demo stays meaningful whenever it
 * is loaded.
 */
export interface DemoClock {
  /** `days` from today (UTC) at hh:mm UTC. */
  on: (days: number, hh?: number, mm?: number) => string;
  /** Exactly `days` before now, for the rolling MCP window. */
  ago: (days: number) => string;
  /** A validity period that started a month ago and lasts most of a year. */
  validNow: { ValidFrom: string; ValidTo: string };
}

export function demoClock(now: Date): DemoClock {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const on = (days: number, hh = 0, mm = 0) => new Date(midnight + days * DAY + (hh * 60 + mm) * 60000).toISOString();
  const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
  return { on, ago, validNow: { ValidFrom: on(-30), ValidTo: on(335, 23, 59) } };
}
