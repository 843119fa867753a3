// Fixed one-second windows per API key and lookup, aligned to wall-clock seconds, plus the
// X-RateLimit-* headers each endpoint reports in its own dialect.
import type { LookupKind } from '../core/lookups.js';

export interface RateWindow {
  /** The wall-clock second (epoch seconds) this window counts. */
  second: number;
  count: number;
}

export interface RateVerdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** End of the window, epoch seconds. */
  readonly resetAt: number;
  /** Whole seconds until the window ends, at least 1. */
  readonly resetIn: number;
}

export function newWindow(): RateWindow {
  return { second: 0, count: 0 };
}

/** Counts one request in `w` (when allowed); `limit` 0 means unlimited. */
export function take(w: RateWindow, limit: number, nowMs: number): RateVerdict {
  return judge(w, limit, nowMs, true);
}

/** The window's state without counting a request (for answers that are not counted). */
export function peek(w: RateWindow | undefined, limit: number, nowMs: number): RateVerdict {
  return judge(w ?? newWindow(), limit, nowMs, false);
}

function judge(w: RateWindow, limit: number, nowMs: number, count: boolean): RateVerdict {
  const second = Math.floor(nowMs / 1000);
  if (w.second !== second) {
    w.second = second;
    w.count = 0;
  }
  const resetAt = second + 1;
  const resetIn = Math.max(1, Math.ceil((resetAt * 1000 - nowMs) / 1000));
  if (limit === 0) return { allowed: true, limit, remaining: 0, resetAt, resetIn };
  if (count && w.count >= limit) return { allowed: false, limit, remaining: 0, resetAt, resetIn };
  if (count) w.count++;
  return { allowed: true, limit, remaining: Math.max(0, limit - w.count), resetAt, resetIn };
}

/**
 * Header pairs (flat, for writeHead) for a lookup's response. Unlimited lookups send none: there
 * is no limit to report. LRN reports the reset as seconds to wait, CNAM and trust as a Unix time.
 */
export function rateHeaders(kind: LookupKind, v: RateVerdict, limited: boolean): string[] {
  if (v.limit === 0) return limited ? ['Retry-After', String(v.resetIn)] : [];
  const reset = kind === 'lrn' ? v.resetIn : v.resetAt;
  const h = ['X-RateLimit-Limit', String(v.limit), 'X-RateLimit-Remaining', String(v.remaining), 'X-RateLimit-Reset', String(reset)];
  if (limited) h.push('Retry-After', String(v.resetIn));
  return h;
}
