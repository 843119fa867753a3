// Whether a cached answer may still answer. An answer dated in the future (a clock set back, a
// file copied from another machine) would otherwise stay fresh for ever, and a date no clock can
// show (a damaged entry) would end the run where the date is printed: both are stale.

/** How far ahead of this clock an answer's date may be (another process's clock, a step of NTP). */
const CLOCK_SKEW_MS = 5 * 60_000;
/** The last moment a Date can hold. */
const LAST_DATE_MS = 8.64e15;

/** A time a Date can show. */
export function isShowableTime(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= LAST_DATE_MS;
}

/** Fetched at most `maxAge` ago, and not later than now. */
export function isFresh(fetchedAt: number, now: number, maxAge: number): boolean {
  return isShowableTime(fetchedAt) && fetchedAt - now <= CLOCK_SKEW_MS && now - fetchedAt <= maxAge;
}
