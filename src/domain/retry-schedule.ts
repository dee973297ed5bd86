/**
 * The retry schedule (docs/decisions.md, "Events and deliveries"): after a failed attempt the next one waits the
 * schedule's delay for that retry; once every retry is spent the message fails.
 * `WEBHOOK_RETRY_SCHEDULE` gives another one as comma-separated delays with a unit, e.g.
 * `1s,2s,3s`.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DELAY = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** The delays in milliseconds, or an error message naming the part that is not a delay. */
export function parseRetrySchedule(text: string): number[] | string {
  const delays: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const match = DELAY.exec(part);
    if (!match) return `"${part}" is not a delay such as 500ms, 5s, 30m or 2h`;
    delays.push(Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]));
  }
  return delays;
}

/** A `Retry-After` is honoured up to this long; a receiver cannot park a message for ever. */
const MAX_RETRY_AFTER_MS = 24 * UNIT_MS.h;

/**
 * `Retry-After` (delay-seconds or an HTTP date) in milliseconds from `now`; undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

/**
 * When the attempt after attempt number `attempt` (1 = the first) is due, or null when the
 * schedule is spent. A later `Retry-After` moves it later, never earlier.
 */
export function nextAttemptAt(schedule: readonly number[], attempt: number, now: Date, retryAfter?: number): Date | null {
  const delay = schedule[attempt - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.max(delay, retryAfter ?? 0));
}
