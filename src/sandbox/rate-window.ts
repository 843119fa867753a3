// Fixed windows per API key and lookup (or one shared by all lookups), aligned to multiples of
// their length since the epoch (one second by default), with an optional cap on bursts inside a
// longer window; plus the rate headers each endpoint reports in its own dialect.
import { LOOKUPS, type LookupKind } from '../core/lookups.js';

export interface RateWindow {
  /** Which window (epoch ms ÷ its length) this one counts. */
  index: number;
  count: number;
  /** The wall-clock second the burst count is for, and that count. */
  second: number;
  secondCount: number;
}

/** How a budget is enforced and reported. */
export interface WindowRule {
  /** Requests per window; 0 = unlimited. */
  readonly limit: number;
  /** Default 1000. */
  readonly windowMs?: number;
  /** At most burst × (limit per second) in any wall-clock second; undefined = no cap within the window. */
  readonly burst?: number | undefined;
  /** Which fields report the budget: X-RateLimit-* (default), the IETF RateLimit/RateLimit-Policy, or both. */
  readonly headers?: RateHeaderStyle;
  /** No X-RateLimit-Limit and no quota in RateLimit-Policy: the client must learn the limit. */
  readonly hideLimit?: boolean;
}

export type RateHeaderStyle = 'x' | 'ietf' | 'both';

export interface RateVerdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** End of the window, epoch seconds. */
  readonly resetAt: number;
  /** Whole seconds until the window ends (or, refused by the burst cap, until the next second), at least 1. */
  readonly resetIn: number;
  /** Whole seconds until the window ends, at least 1. */
  readonly windowResetIn?: number;
  readonly rule?: WindowRule;
  /** The burst cap, and what is left of it this second (when there is one). */
  readonly burstLimit?: number;
  readonly burstRemaining?: number;
  /** A refusal that gives no hint: no Retry-After (a spurious 429 with --rate-429-bare). */
  readonly bare?: boolean;
}

export function newWindow(): RateWindow {
  return { index: 0, count: 0, second: 0, secondCount: 0 };
}

const ruleOf = (r: number | WindowRule): WindowRule => (typeof r === 'number' ? { limit: r } : r);

/** Counts one request in `w` (when allowed); a limit of 0 means unlimited. */
export function take(w: RateWindow, rule: number | WindowRule, nowMs: number): RateVerdict {
  return judge(w, ruleOf(rule), nowMs, true);
}

/** The window's state without counting a request (for answers that are not counted). */
export function peek(w: RateWindow | undefined, rule: number | WindowRule, nowMs: number): RateVerdict {
  return judge(w ?? newWindow(), ruleOf(rule), nowMs, false);
}

/** The most requests the burst cap lets through in one second, or undefined when there is none. */
export function burstCap(rule: WindowRule): number | undefined {
  if (rule.burst === undefined || rule.limit === 0) return undefined;
  return Math.max(1, Math.floor((rule.burst * rule.limit * 1000) / (rule.windowMs ?? 1000)));
}

function judge(w: RateWindow, rule: WindowRule, nowMs: number, count: boolean): RateVerdict {
  const { limit } = rule;
  const windowMs = rule.windowMs ?? 1000;
  const index = Math.floor(nowMs / windowMs);
  if (w.index !== index) {
    w.index = index;
    w.count = 0;
  }
  const second = Math.floor(nowMs / 1000);
  if (w.second !== second) {
    w.second = second;
    w.secondCount = 0;
  }
  const endMs = (index + 1) * windowMs;
  const resetAt = Math.ceil(endMs / 1000);
  const resetIn = Math.max(1, Math.ceil((endMs - nowMs) / 1000));
  const base = { limit, resetAt, resetIn, windowResetIn: resetIn, rule };
  if (limit === 0) return { allowed: true, remaining: 0, ...base };
  const cap = burstCap(rule);
  const burst = (used: number) => (cap === undefined ? {} : { burstLimit: cap, burstRemaining: Math.max(0, cap - used) });
  if (count && w.count >= limit) return { allowed: false, remaining: 0, ...base, ...burst(w.secondCount) };
  if (count && cap !== undefined && w.secondCount >= cap) {
    // The window has room but this second does not: come back next second.
    return { allowed: false, remaining: Math.max(0, limit - w.count), ...base, resetIn: 1, ...burst(w.secondCount) };
  }
  if (count) {
    w.count++;
    w.secondCount++;
  }
  return { allowed: true, remaining: Math.max(0, limit - w.count), ...base, ...burst(w.secondCount) };
}

/**
 * Header pairs (flat, for writeHead) for a lookup's response. Unlimited lookups send none: there
 * is no limit to report. In X-RateLimit-*, the reset is what the lookup's descriptor says
 * (rateReset): seconds to wait (LRN), or a Unix time (CNAM and trust); the IETF fields (draft-ietf-httpapi-ratelimit-headers) give the policy
 * (`q` quota, `w` window in seconds) and the room (`r`) with seconds to reset (`t`), a burst cap
 * as a second policy.
 */
export function rateHeaders(kind: LookupKind, v: RateVerdict, limited: boolean): string[] {
  if (v.limit === 0) return limited && !v.bare ? ['Retry-After', String(v.resetIn)] : [];
  const rule = v.rule ?? { limit: v.limit };
  const style = rule.headers ?? 'x';
  const h: string[] = [];
  if (style !== 'ietf') {
    // The window's end in either form, also when a burst cap refused (Retry-After says 1 s then).
    const reset = LOOKUPS[kind].rateReset === 'seconds' ? (v.windowResetIn ?? v.resetIn) : v.resetAt;
    if (!rule.hideLimit) h.push('X-RateLimit-Limit', String(v.limit));
    h.push('X-RateLimit-Remaining', String(v.remaining), 'X-RateLimit-Reset', String(reset));
  }
  if (style !== 'x') {
    const w = Math.max(1, Math.round((rule.windowMs ?? 1000) / 1000));
    const room = [`"window";r=${v.remaining};t=${v.windowResetIn ?? v.resetIn}`];
    const policy = [`"window";q=${v.limit};w=${w}`];
    if (v.burstLimit !== undefined) {
      room.push(`"burst";r=${v.burstRemaining ?? 0};t=1`);
      policy.push(`"burst";q=${v.burstLimit};w=1`);
    }
    h.push('RateLimit', room.join(', '));
    if (!rule.hideLimit) h.push('RateLimit-Policy', policy.join(', '));
  }
  if (limited && !v.bare) h.push('Retry-After', String(v.resetIn));
  return h;
}
