// The client-side rate of one lookup kind: a token bucket paced just under the service's limit,
// held while the service says the window is spent, and backed off after a 429.
//
// Why these numbers: the service counts requests per wall-clock second. A bucket of rate r and
// capacity b lets through at most b + r requests in ANY one-second interval, whatever its phase.
// So b + r must stay under the limit L with a little slack for network jitter moving a request
// into the next server window: r = 97% of L and b = 2% of L (at least 1) gives ≤ 99% of L in any
// second, and ~96.5% achieved (bench/bulk-limit.js: no 429s at 200/s). The bucket also keeps up
// to half a token beyond b, so a wakeup that fires late does not lose time (at 50/s a 1 ms late
// timer per token would cost 5%); that adds at most 0.5 to the bound, still under L. Below 50/s
// it does not fit: b is then 1 (2% of L is less), and 1 + 0.5 + 0.97·L lets through one request
// more than L in a second (3 at --rate 2). There the bucket keeps no late credit: the count in any
// second is then at most ⌊1 + 0.97·L⌋ ≤ L, and a late timer costs a small rate little.
// Retries take tokens like first tries, so they never add to the rate.
import type { RateInfo } from '../../core/transport.js';
import { backoffMs, type Random } from './retry.js';

const PACE = 0.97;
const BURST = 0.02;
/** After a 429 the rate halves; it climbs back by this share of the target per calm second. */
const DECREASE = 0.5;
const INCREASE = 0.05;
/** The rate never backs off below this, requests/s. */
const FLOOR = 1;
/**
 * A 429 at a pace within this share of the last refused one is a probe just past a limit already
 * found: the pace steps back under it (PACE) instead of halving. Above the pace refused last, the
 * climb creeps by this share of it per calm second (a spurious 429 is not a limit for ever).
 */
const NEAR = 0.9;
const CREEP = 0.005;
/** Tokens a late wakeup may carry beyond the burst. */
const LATE_CREDIT = 0.5;

export class RateLimiter {
  /** The ceiling we aim under: the configured rate, lowered if the service advertises less. 0 = none. */
  private target: number;
  /** Current pace, requests/s (≤ PACE·target; lower after a 429). */
  private rate = 0;
  private burst = 1;
  /** LATE_CREDIT where it fits under the limit (see above), else 0. */
  private lateCredit = 0;
  private tokens = 0;
  private refilledAt: number;
  private pausedUntil = 0;
  private backoffs = 0;
  private lastChangeAt = -Infinity;
  /** The pace the last 429 came at: the climb back stops just under it, then creeps. */
  private refusedPace = Infinity;

  constructor(
    configured: number,
    now: number,
    private readonly random: Random = Math.random,
  ) {
    if (!Number.isFinite(configured) || configured < 0) {
      throw new RangeError(`rate must be a number ≥ 0 (0 = no client-side limit), got ${String(configured)}`);
    }
    this.target = configured;
    this.refilledAt = now;
    this.setTarget(configured);
    this.tokens = this.burst;
  }

  /** Current pace in requests/s; Infinity when unlimited. */
  get pace(): number {
    return this.target === 0 ? Infinity : this.rate;
  }

  /**
   * Takes a token when one is free and returns 0; otherwise returns how many ms to wait before
   * asking again (nothing is taken). Costs no timer: the caller schedules one wakeup per kind.
   */
  take(now: number): number {
    const wait = this.ready(now);
    if (wait === 0 && this.target !== 0) this.tokens -= 1;
    return wait;
  }

  /** As take(), but takes nothing: 0 when a token is free now, else the ms until one is. */
  ready(now: number): number {
    if (now < this.pausedUntil) return this.pausedUntil - now;
    if (this.target === 0) return 0;
    this.refill(now);
    if (this.tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.rate));
  }

  /** Holds every request of this kind until `until` (epoch ms); never shortens a longer hold. */
  private holdUntil(until: number): void {
    if (until > this.pausedUntil) this.pausedUntil = until;
  }

  /** Reads the service's rate headers: a spent window holds until reset; a lower limit lowers ours. */
  observe(info: RateInfo | undefined, now: number): void {
    if (!info) return;
    if (info.limit !== undefined && info.limit > 0 && this.target > 0 && info.limit < this.target) {
      this.refill(now);
      this.setTarget(info.limit);
    }
    if (info.remaining !== undefined && info.remaining <= 0 && info.resetAt !== undefined && info.resetAt > now) {
      this.holdUntil(info.resetAt);
    }
  }

  /**
   * A 429: hold the whole kind until the hint (else an exponential full-jitter backoff) and halve
   * the pace, once per second at most, since a burst of in-flight requests answers 429 together.
   */
  rateLimited(waitMs: number | undefined, now: number): void {
    this.backoffs += 1;
    const wait = waitMs ?? backoffMs(this.backoffs, this.random);
    this.holdUntil(now + wait);
    if (this.target > 0 && now - this.lastChangeAt >= 1000) {
      this.refill(now);
      const near = this.rate >= NEAR * this.refusedPace;
      this.refusedPace = this.rate;
      this.rate = Math.max(Math.min(FLOOR, this.target), this.rate * (near ? PACE : DECREASE));
      this.lastChangeAt = now;
    }
  }

  /** A request of this kind went through: after a calm second, climb back toward the target. */
  succeeded(now: number): void {
    this.backoffs = 0;
    const ceiling = this.target * PACE;
    if (this.target === 0 || this.rate >= ceiling || now - this.lastChangeAt < 1000) return;
    this.refill(now);
    const cap = Math.min(ceiling, this.refusedPace * PACE);
    if (this.rate < cap) this.rate = Math.min(cap, this.rate + this.target * INCREASE);
    else {
      this.refusedPace *= 1 + CREEP;
      this.rate = Math.min(ceiling, this.refusedPace * PACE);
    }
    this.lastChangeAt = now;
  }

  private setTarget(limit: number): void {
    this.target = limit;
    if (limit === 0) return;
    this.rate = limit * PACE;
    this.burst = Math.max(1, Math.floor(limit * BURST));
    this.lateCredit = this.burst + LATE_CREDIT + this.rate <= limit ? LATE_CREDIT : 0;
    this.tokens = Math.min(this.tokens, this.burst);
  }

  private refill(now: number): void {
    const elapsed = now - this.refilledAt;
    if (elapsed > 0) this.tokens = Math.min(this.burst + this.lateCredit, this.tokens + (elapsed * this.rate) / 1000);
    this.refilledAt = now;
  }
}
