// The sandbox's rate windows over HTTP with a clock the test steps: window length, one budget
// shared by every lookup, and the busiest window in its stats.
import { describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { steppedClock } from '../support/clock.js';
import { sandbox } from '../support/sandbox.js';
import { cnam, lrn, trust } from './helpers.js';

async function stepped(options: Partial<SandboxOptions>) {
  const clock = steppedClock(1_700_000_020_000); // 40 s into a minute
  const sb = await sandbox(options, clock);
  return { sb, advance: clock.advance };
}

const body = (i: number) => ({ phone_number: `1212555${String(1000 + i)}` });

describe('sandbox rate windows (stepped clock)', () => {
  it('--shared-limit: LRN, CNAM and trust spend one budget of the key', async () => {
    const { sb, advance } = await stepped({ sharedLimit: 5, windowMs: 60_000 });
    const replies = [await lrn(sb, body(1)), await lrn(sb, body(2)), await cnam(sb, body(3)), await trust(sb, body(4)), await cnam(sb, body(5)), await trust(sb, body(6))];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(replies.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(replies[0]?.headers.get('x-ratelimit-limit')).toBe('5');
    // LRN reports the 20 s left of the minute as a delta; trust as the minute's end.
    expect(replies[0]?.headers.get('x-ratelimit-reset')).toBe('20');
    expect(replies[3]?.headers.get('x-ratelimit-reset')).toBe('1700000040');
    advance(20_000);
    expect((await lrn(sb, body(7))).status).toBe(200);
    expect(sb.stats().windows).toMatchObject({ counted: 6, busiest: 5, first: 1_700_000_020_000, last: 1_700_000_040_000 });
    expect(sb.stats().windows.counts).toEqual({ 'shared:1699999980000': 5, 'shared:1700000040000': 1 });
  });

  it('defaults are unchanged: one-second windows per lookup, X-RateLimit-* with the limit', async () => {
    const { sb } = await stepped({ limits: { lrn: 2, cnam: 1, trust: 1 } });
    const l = [await lrn(sb, body(1)), await lrn(sb, body(2)), await lrn(sb, body(3))];
    expect(l.map((r) => r.status)).toEqual([200, 200, 429]);
    expect((await cnam(sb, body(4))).status).toBe(200);
    expect(l[0]?.headers.get('ratelimit')).toBeNull();
    expect(l[0]?.headers.get('x-ratelimit-limit')).toBe('2');
  });

  it('--rate-headers ietf --hide-limit: RateLimit only, no quota anywhere', async () => {
    const { sb } = await stepped({ rateHeaders: 'ietf', hideLimit: true, windowMs: 10_000 });
    const r = await lrn(sb, body(1));
    expect(r.headers.get('ratelimit')).toBe('"window";r=199;t=10');
    expect(r.headers.get('ratelimit-policy')).toBeNull();
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('a 429 names the window that refused: its length, a burst second, or the budget all lookups share', async () => {
    const { sb } = await stepped({ limits: { lrn: 1 }, windowMs: 60_000, errorStyle: 'vri' });
    expect((await lrn(sb, body(1))).status).toBe(200);
    const refused = await lrn(sb, body(2));
    expect(refused.status).toBe(429);
    // vri's first 429 is format B: the window the body reports is the sandbox's, not one second.
    expect(refused.json).toMatchObject({ code: 'rate_limited', window_seconds: 60, retry_after: 20 });
    expect(refused.json.error).toContain('LRN lookups per 60 s window');

    const burst = await stepped({ limits: { cnam: 60 }, windowMs: 60_000, burst: 2 });
    for (let i = 0; i < 2; i++) expect((await cnam(burst.sb, body(i))).status).toBe(200);
    expect((await cnam(burst.sb, body(3))).json.errors).toEqual(['rate limit of CNAM lookups per second for this API key exceeded; retry in 1 s']);

    const shared = await stepped({ sharedLimit: 1 });
    expect((await lrn(shared.sb, body(1))).status).toBe(200);
    expect((await trust(shared.sb, body(2))).json.error).toBe('rate limit of all lookups (shared) per second for this API key exceeded; retry in 1 s');
  });

  it('a burst cap refusal keeps X-RateLimit-Reset on the window end, as seconds (LRN) or a Unix time (CNAM); Retry-After says the second', async () => {
    const { sb } = await stepped({ limits: { lrn: 60, cnam: 60 }, windowMs: 60_000, burst: 2 });
    const l = [await lrn(sb, body(1)), await lrn(sb, body(2)), await lrn(sb, body(3))];
    const c = [await cnam(sb, body(1)), await cnam(sb, body(2)), await cnam(sb, body(3))];
    expect([...l, ...c].map((r) => r.status)).toEqual([200, 200, 429, 200, 200, 429]);
    expect(l.map((r) => r.headers.get('x-ratelimit-reset'))).toEqual(['20', '20', '20']);
    expect(c.map((r) => r.headers.get('x-ratelimit-reset'))).toEqual(['1700000040', '1700000040', '1700000040']);
    expect([l[2]?.headers.get('retry-after'), c[2]?.headers.get('retry-after')]).toEqual(['1', '1']);
  });
});
