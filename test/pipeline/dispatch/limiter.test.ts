import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST, type LookupKind } from '../../../src/core/lookups.js';
import { RateLimiter } from '../../../src/pipeline/dispatch/rate-limiter.js';
import type { Attempt } from '../../../src/core/transport.js';
import { harness, ok, runAll, tooMany, type Call } from '../fakes.js';
import { numbers } from '../../support/numbers.js';

/** The most requests in any one-second interval [t, t+1000). */
function busiestSecond(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while ((t[hi] as number) - (t[lo] as number) >= 1000) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** A server that counts requests per wall-clock second and answers 429 over `limit`. */
function fixedWindowServer(limit: number): (call: Call) => Attempt {
  const counts = new Map<string, number>();
  return (call) => {
    const key = `${call.kind}:${Math.floor(call.at / 1000)}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return n > limit ? tooMany(1000 - (call.at % 1000)) : ok({ n });
  };
}

const timesOf = (calls: Call[], kind?: LookupKind) => calls.filter((c) => !kind || c.kind === kind).map((c) => c.at);

describe('RateLimiter', () => {
  it('hands out tokens without waiting while the burst lasts, then paces', () => {
    const l = new RateLimiter(200, 0);
    expect([l.take(0), l.take(0), l.take(0), l.take(0)]).toEqual([0, 0, 0, 0]);
    const wait = l.take(0);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(Math.ceil(1000 / 194));
    expect(l.take(wait)).toBe(0);
  });

  it.each([1, 2, 3, 5, 10, 25, 49, 50, 200])('a ceiling of %i/s: never more in any one-second interval, after an idle spell and with late wakeups too', (limit) => {
    const l = new RateLimiter(limit, 0);
    const sent: number[] = [];
    let now = 0;
    for (let i = 0; i < limit * 6 + 10; i++) {
      // Idle for a while: the bucket fills to the most it may hold.
      if (i === limit * 3) now += 5000;
      for (let wait = l.take(now); wait > 0; wait = l.take(now)) now += wait + (i % 3);
      sent.push(now);
    }
    expect(busiestSecond(sent)).toBeLessThanOrEqual(limit);
  });

  it('rate 0 never waits, except for a pause the service asked for', () => {
    const l = new RateLimiter(0, 0);
    for (let i = 0; i < 10_000; i++) expect(l.take(0)).toBe(0);
    l.rateLimited(700, 10);
    expect(l.take(10)).toBe(700);
    expect(l.take(710)).toBe(0);
  });

  it('halves the pace on a 429 and climbs back over calm seconds', () => {
    const l = new RateLimiter(100, 0, () => 0.5);
    expect(l.pace).toBe(97);
    l.rateLimited(undefined, 0);
    expect(l.pace).toBe(48.5);
    expect(l.take(0)).toBeGreaterThan(0);
    l.rateLimited(undefined, 10);
    expect(l.pace).toBe(48.5);
    for (let s = 1; s <= 20; s++) l.succeeded(s * 1000);
    expect(l.pace).toBe(97);
  });

  it('after a 429 climbs back only to just under the pace refused, then creeps; a 429 near that pace steps back instead of halving', () => {
    const l = new RateLimiter(200, 0, () => 0.5);
    expect(l.pace).toBe(194);
    l.rateLimited(undefined, 0);
    expect(l.pace).toBe(97);
    // +10/s per calm second, up to 97% of the 194/s refused (188.18), not to 194.
    for (let s = 1; s <= 10; s++) l.succeeded(s * 1000);
    expect(l.pace).toBeCloseTo(188.18, 2);
    // Then half a percent of the refused pace per calm second: a spurious 429 is not a limit for ever.
    l.succeeded(11_000);
    expect(l.pace).toBeCloseTo(0.97 * 194 * 1.005, 2);
    // A 429 within 10% of the pace refused last: a probe just past the limit, 97% of it, no halving.
    l.rateLimited(undefined, 12_000);
    expect(l.pace).toBeCloseTo(0.97 * 0.97 * 194 * 1.005, 2);
    // Far under it (another client took the budget): halved.
    const m = new RateLimiter(200, 0, () => 0.5);
    m.rateLimited(undefined, 0);
    m.rateLimited(undefined, 1000);
    expect(m.pace).toBe(48.5);
  });

  it('adopts a lower advertised limit and holds a spent window until its reset', () => {
    const l = new RateLimiter(200, 0);
    l.observe({ limit: 50 }, 0);
    expect(l.pace).toBe(48.5);
    l.observe({ remaining: 0, resetAt: 900 }, 100);
    expect(l.take(100)).toBe(800);
    l.observe({ remaining: 0, resetAt: 50 }, 100);
    expect(l.take(900)).toBe(0);
  });

  it('refuses a nonsense rate, quoting it', () => {
    expect(() => new RateLimiter(-1, 0)).toThrow(/got -1/);
  });
});

describe('runner: rate-aware queue', () => {
  it('sits under a fixed one-second window server: ≥95% of the limit, no 429', async () => {
    // One server for all numbers: every number's script shares the same counter.
    const server = fixedWindowServer(200);
    const h2 = harness({ latency: () => 3, script: Object.fromEntries(numbers(2100).map((n) => [n, [server]])) });
    // Out of phase with the server's seconds.
    const start = h2.clock.now() + 337;
    await h2.clock.advance(337);
    const { records } = await runAll(h2, numbers(2100), {}, { rates: { lrn: 200 }, concurrency: 16 });
    const times = timesOf(h2.transport.calls);
    expect(h2.stats.rateLimited).toBe(0);
    expect(records.every((r) => r.ok)).toBe(true);
    expect(busiestSecond(times)).toBeLessThanOrEqual(200);
    const inTenSeconds = times.filter((t) => t < start + 10_000).length;
    expect(inTenSeconds).toBeGreaterThanOrEqual(0.95 * 2000);
  });

  it('a 429 with a hint pauses every request of that kind until the hint', async () => {
    const inputs = numbers(200);
    const h = harness({ latency: () => 10, script: { [inputs[20] as string]: [tooMany(2000), ok({ fine: true })] } });
    const { records } = await runAll(h, inputs, {}, { concurrency: 8 });
    const answer = h.transport.log.find((e) => e.attempt === 'retry');
    const until = (answer?.at as number) + 2000;
    const early = h.transport.log.filter((e) => e.type === 'send' && e.at > (answer?.at as number) && e.at < until);
    expect(early).toEqual([]);
    expect(h.transport.callsOf(inputs[20] as string).map((c) => c.at >= until)).toEqual([false, true]);
    expect(records.every((r) => r.ok)).toBe(true);
    expect(h.stats).toMatchObject({ rateLimited: 1, retries: 1, lookups: 200, requests: 201 });
  });

  it('RateInfo remaining=0 holds the kind until the window resets', async () => {
    const inputs = numbers(100);
    const resetAt = harness().clock.now() + 3000;
    const h2 = harness({ latency: () => 10, script: { [inputs[10] as string]: [ok({ last: true }, { limit: 200, remaining: 0, resetAt })] } });
    await runAll(h2, inputs, {}, { concurrency: 4 });
    const answer = h2.transport.log.find((e) => e.type === 'answer' && e.number === inputs[10]);
    const held = h2.transport.log.filter((e) => e.type === 'send' && e.at > (answer?.at as number) && e.at < resetAt);
    expect(held).toEqual([]);
    expect(h2.transport.calls).toHaveLength(100);
  });

  it('enrich: each kind under its own limiter', async () => {
    const h = harness({ latency: () => 5 });
    await runAll(h, numbers(600), { mode: 'enrich', lookups: [LRN, CNAM, TRUST] }, { rates: { lrn: 200, cnam: 50, trust: 20 }, concurrency: 16 });
    const calls = h.transport.calls;
    expect(busiestSecond(timesOf(calls, 'lrn'))).toBeLessThanOrEqual(200);
    expect(busiestSecond(timesOf(calls, 'cnam'))).toBeLessThanOrEqual(50);
    expect(busiestSecond(timesOf(calls, 'trust'))).toBeLessThanOrEqual(20);
    const t0 = calls[0]?.at as number;
    const trustIn10s = timesOf(calls, 'trust').filter((t) => t < t0 + 10_000).length;
    expect(trustIn10s).toBeGreaterThanOrEqual(0.95 * 200);
    // LRN is not held back to trust's pace beyond the reorder window.
    const lrnIn10s = timesOf(calls, 'lrn').filter((t) => t < t0 + 10_000).length;
    expect(lrnIn10s).toBeGreaterThan(trustIn10s);
  });
});
