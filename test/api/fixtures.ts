// Shared test helpers: a fake clock, a reading context and every set of a lookup's options.
import type { LookupDescriptor, LookupOptions } from '../../src/core/lookups.js';
import { steppedClock } from '../support/clock.js';

/** 2025-01-01T00:00:00Z. */
export const NOW = Date.UTC(2025, 0, 1);
export const KEY = 'sk_test_0123456789abcdef';

/** Time stands still unless a test moves it. */
export const fakeClock = (start = NOW) => steppedClock(start);

export const ctx = { now: NOW, secret: KEY };

/** Every subset of a lookup's options. */
export function combinations(d: LookupDescriptor): LookupOptions[] {
  let out: LookupOptions[] = [{}];
  for (const o of d.options) out = out.flatMap((c) => [c, { ...c, [o.name]: true }]);
  return out;
}
