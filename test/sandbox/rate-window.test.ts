import { describe, expect, it } from 'vitest';
import { parseRateInfo, rateFields } from '../../src/api/rate-headers.js';
import { newWindow, peek, rateHeaders, take } from '../../src/sandbox/rate-window.js';

describe('fixed one-second windows (fake clock)', () => {
  it('allows `limit` per wall-clock second, then refuses until the next second', () => {
    const w = newWindow();
    const t0 = 1_700_000_000_250;
    const verdicts = Array.from({ length: 4 }, () => take(w, 3, t0));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false]);
    expect(verdicts.map((v) => v.remaining)).toEqual([2, 1, 0, 0]);
    expect(verdicts[3]).toMatchObject({ resetAt: 1_700_000_001, resetIn: 1 });
    expect(take(w, 3, t0 + 749).allowed).toBe(false);
    expect(take(w, 3, t0 + 750)).toMatchObject({ allowed: true, remaining: 2, resetAt: 1_700_000_002 });
  });

  it('0 is unlimited; peek does not count', () => {
    const w = newWindow();
    for (let i = 0; i < 1000; i++) expect(take(w, 0, 5_000).allowed).toBe(true);
    const p = newWindow();
    for (let i = 0; i < 5; i++) peek(p, 1, 5_000);
    expect(take(p, 1, 5_000).allowed).toBe(true);
    expect(peek(undefined, 4, 5_000).remaining).toBe(4);
  });

  it('reports Reset as seconds for LRN and as a Unix time for CNAM and trust', () => {
    const v = take(newWindow(), 10, 1_700_000_000_900);
    expect(rateHeaders('lrn', v, false)).toEqual(['X-RateLimit-Limit', '10', 'X-RateLimit-Remaining', '9', 'X-RateLimit-Reset', '1']);
    expect(rateHeaders('cnam', v, false)[5]).toBe('1700000001');
    expect(rateHeaders('trust', v, true)).toContain('Retry-After');
    expect(rateHeaders('lrn', take(newWindow(), 0, 0), false)).toEqual([]);
  });
});

describe('windows of any length, burst caps, hidden limits, IETF fields', () => {
  const t0 = 1_700_000_020_000; // 40 s into a minute

  it('a 60 s window counts 60 s aligned to the epoch, and reports its end', () => {
    const w = newWindow();
    const rule = { limit: 3, windowMs: 60_000 };
    expect([1, 2, 3, 4].map(() => take(w, rule, t0).allowed)).toEqual([true, true, true, false]);
    expect(take(w, rule, t0 + 19_999)).toMatchObject({ allowed: false, resetAt: 1_700_000_040, resetIn: 1 });
    expect(take(w, rule, t0 + 20_000)).toMatchObject({ allowed: true, remaining: 2, resetAt: 1_700_000_100, resetIn: 60 });
  });

  it('a burst cap refuses past F × the average in one second, then lets the window go on', () => {
    const w = newWindow();
    const rule = { limit: 600, windowMs: 60_000, burst: 2 }; // average 10/s, at most 20 in a second
    const first = Array.from({ length: 25 }, () => take(w, rule, t0 + 500));
    expect(first.filter((v) => v.allowed)).toHaveLength(20);
    expect(first[20]).toMatchObject({ allowed: false, remaining: 580, resetIn: 1, burstLimit: 20, burstRemaining: 0 });
    expect(take(w, rule, t0 + 1000)).toMatchObject({ allowed: true, remaining: 579 });
  });

  it('hides the limit, and speaks the IETF fields the pacer reads back', () => {
    const rule = { limit: 10, windowMs: 60_000, hideLimit: true };
    const v = take(newWindow(), rule, t0);
    expect(rateHeaders('lrn', v, false)).toEqual(['X-RateLimit-Remaining', '9', 'X-RateLimit-Reset', '20']);
    const ietf = take(newWindow(), { limit: 600, windowMs: 60_000, burst: 2, headers: 'ietf' as const }, t0);
    const h = rateHeaders('cnam', ietf, false);
    expect(h).toEqual(['RateLimit', '"window";r=599;t=20, "burst";r=19;t=1', 'RateLimit-Policy', '"window";q=600;w=60, "burst";q=20;w=1']);
    const fields = rateFields({ ratelimit: h[1], 'ratelimit-policy': h[3] });
    // The burst policy has the least room: it binds, for a second.
    expect(parseRateInfo(fields, t0)).toEqual({ limit: 20, remaining: 19, resetAt: t0 + 1000, windowMs: 1000 });
    const both = rateHeaders('trust', take(newWindow(), { limit: 5, headers: 'both' as const, hideLimit: true }, t0), true);
    expect(both).toEqual(['X-RateLimit-Remaining', '4', 'X-RateLimit-Reset', '1700000021', 'RateLimit', '"window";r=4;t=1', 'Retry-After', '1']);
  });
});
