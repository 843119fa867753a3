import { describe, expect, it } from 'vitest';
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
