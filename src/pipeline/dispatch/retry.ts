// The retry policy in one place (undici's lib/handler/retry-handler.js is the model): which
// failures are transient, whether one more try is worth it, how long to wait first, and when a
// server's wait hint is too long to obey. (Holding the whole kind after a 429 is the pacer's.)
//
// Backoff is exponential with full jitter (AWS Architecture Blog, "Exponential Backoff and
// Jitter"), which spreads retries of many workers apart. A service hint is a floor, never
// shortened, because sending before the advertised time only earns another 429; but it is capped:
// a hint longer than `maxWaitMs` (--max-wait) stops the run, resumably, instead of parking it for
// a day per retry.
import { isTransient } from '../../core/records.js';
import type { Attempt, RateInfo } from '../../core/transport.js';

/** A source of uniform randomness in [0, 1); injectable so tests can pin the jitter. */
export type Random = () => number;

/** Ceiling of the first retry's wait, ms. */
const BASE_MS = 250;
/** No backoff of ours is ever longer than this. */
const CAP_MS = 30_000;
/** --max-wait's default: the longest server hint obeyed, ms. */
export const DEFAULT_MAX_WAIT_MS = 300_000;
/**
 * A 429 is waited out and retried (cli.md): it says "later", not "failed", so it does not spend
 * --retries, which bounds 5xx, resets and timeouts. This many 429s for one lookup still end it
 * (rate_limited): a service that answers nothing else must not hold a row for ever. Ten waits of
 * the jittered backoff (no hint) come to about a minute; a service asking for a day stops the run
 * at once instead (--max-wait).
 */
export const RATE_LIMITED_RETRIES = 10;

/** What one lookup has been through: its retries in all, and how many of them followed a 429. */
export interface Tries {
  readonly retries: number;
  readonly rateLimited: number;
}

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

export interface RetryPolicy {
  /** Retries of one lookup after a transient failure. */
  readonly retries: number;
  /** The longest server hint obeyed, ms; a longer one stops the run. */
  readonly maxWaitMs: number;
  readonly random: Random;
}

/** What to do after one answer. */
export type RetryDecision =
  /** Final: the answer stands (a success, a refusal, or a transient failure out of retries). */
  | { readonly action: 'done' }
  /** Send again after `waitMs` (a 429 also holds the whole kind: the pacer reads that from the answer). */
  | { readonly action: 'retry'; readonly waitMs: number }
  /** The service asked for a wait longer than maxWaitMs: stop the run, resumably. */
  | { readonly action: 'stop'; readonly hintMs: number };

/**
 * The wait the service asked for in this answer, ms: a retry's hint (Retry-After, retry_after, a
 * reset time), or, on any answer, a spent window (`Remaining: 0`) that resets later.
 */
export function serverWaitMs(a: Attempt, now: number): number | undefined {
  const hint = a.kind === 'retry' ? a.waitMs : undefined;
  const hold = spentWindowMs(a.rate, now);
  if (hint === undefined) return hold;
  return hold === undefined ? hint : Math.max(hint, hold);
}

function spentWindowMs(rate: RateInfo | undefined, now: number): number | undefined {
  if (rate?.remaining === undefined || rate.remaining > 0 || rate.resetAt === undefined || rate.resetAt <= now) return undefined;
  return rate.resetAt - now;
}

/**
 * The one decision: given an answer, the retries this lookup has had, and the policy, whether to
 * retry, how long to wait first, or whether to stop the run.
 */
export function decideRetry(a: Attempt, tries: Tries, policy: RetryPolicy, now: number): RetryDecision {
  // Checked first, for every answer: a success that says the window is spent for a day holds the
  // kind for a day just as a 429 would.
  const hintMs = serverWaitMs(a, now);
  if (hintMs !== undefined && hintMs > policy.maxWaitMs) return { action: 'stop', hintMs };
  if (a.kind !== 'retry' || !(isTransient(a.error.code) || a.once === true)) return { action: 'done' };
  const retries = a.once === true ? Math.min(1, policy.retries) : policy.retries;
  const spent = a.rateLimited ? tries.rateLimited >= RATE_LIMITED_RETRIES : tries.retries - tries.rateLimited >= retries;
  if (spent) return { action: 'done' };
  const waitMs = retryDelayMs(tries.retries + 1, a.waitMs, policy.random);
  return { action: 'retry', waitMs };
}

/** "42 s", "1 h": a wait as a person reads it. */
export function formatWait(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${Math.max(1, s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  if (s < 63_072_000) return `${Math.round(s / 86_400)} days`;
  return `${Math.round(s / 31_536_000)} years`;
}
