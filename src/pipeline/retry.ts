// The retry policy in one place: which answers are worth another try, and how long to wait first.
// Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter")
// spreads retries of many workers apart; a service hint is a floor, never shortened, because
// sending before the advertised time only earns another 429.

/** A source of uniform randomness in [0, 1); injectable so tests can pin the jitter. */
export type Random = () => number;

/** Ceiling of the first retry's wait, ms. */
const BASE_MS = 250;
/** No wait is ever longer than this (unless the service asked for longer). */
const CAP_MS = 30_000;

/** Full jitter: uniform in [0, min(cap, base·2^(attempt-1))) for the 1-based retry `attempt`. */
export function backoffMs(attempt: number, random: Random): number {
  const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait before retry number `attempt` (1-based): the jittered backoff, or the service's
 * own hint when that is longer.
 */
export function retryDelayMs(attempt: number, hintMs: number | undefined, random: Random): number {
  const jittered = backoffMs(attempt, random);
  return hintMs !== undefined && hintMs > jittered ? Math.ceil(hintMs) : jittered;
}
