import { describe, expect, it } from 'vitest';
import { draftLimits, parseRateInfo, rateFields, resetToEpochMs, retryAfterMs, waitHintMs, type WaitHintInput } from '../../src/api/rate-headers.js';
import { NOW } from './fixtures.js';

describe('parseRateInfo', () => {
  it.each([
    ['X-RateLimit-Reset as a delta in seconds', { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '199', 'x-ratelimit-reset': '1' }, { limit: 200, remaining: 199, resetAt: NOW + 1000 }],
    ['X-RateLimit-Reset as a Unix timestamp', { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 30) }, { limit: 50, remaining: 0, resetAt: NOW + 30_000 }],
    ['X-RateLimit-Reset in epoch ms', { 'x-ratelimit-reset': String(NOW + 5000) }, { resetAt: NOW + 5000 }],
    ['mixed-case header names', { 'X-RateLimit-Remaining': '7' }, { remaining: 7 }],
    ['a list value keeps its first number', { 'x-ratelimit-limit': '100, 100;w=60' }, { limit: 100 }],
    ['draft separate fields', { 'ratelimit-limit': '100', 'ratelimit-remaining': '5', 'ratelimit-reset': '7' }, { limit: 100, remaining: 5, resetAt: NOW + 7000 }],
    ['draft dictionary', { ratelimit: 'limit=100, remaining=50, reset=30' }, { limit: 100, remaining: 50, resetAt: NOW + 30_000 }],
    ['draft list with policy', { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60' }, { limit: 100, remaining: 50, resetAt: NOW + 30_000, windowMs: 60_000 }],
    ['draft list: the policy with the least room binds, until its own reset', { ratelimit: '"burst";r=5;t=1, "day";r=500;t=3600' }, { remaining: 5, resetAt: NOW + 1000 }],
    [
      "draft list: the binding policy's quota and window",
      { ratelimit: '"minute";r=5000;t=40, "burst";r=150;t=1', 'ratelimit-policy': '"minute";q=6000;w=60, "burst";q=200;w=1' },
      { limit: 200, remaining: 150, resetAt: NOW + 1000, windowMs: 1000 },
    ],
    ['older policy form', { 'ratelimit-policy': '100;w=60' }, { limit: 100, windowMs: 60_000 }],
    ['X-RateLimit wins over the draft', { 'x-ratelimit-remaining': '3', 'ratelimit-remaining': '9' }, { remaining: 3 }],
  ])('%s', (_name, headers, expected) => {
    expect(parseRateInfo(rateFields(headers), NOW)).toEqual(expected);
  });

  it.each([
    ['no headers', {}],
    ['malformed X-RateLimit values', { 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': 'soon' }],
    ['malformed draft fields', { ratelimit: 'garbage==;;', 'ratelimit-remaining': '5.5x', 'ratelimit-policy': ';;' }],
    ['draft list with non-integer parameters', { ratelimit: '"p";r=abc;t=-3' }],
  ])('%s → undefined', (_name, headers) => {
    expect(parseRateInfo(rateFields(headers), NOW)).toBeUndefined();
  });
});

describe('resetToEpochMs', () => {
  it('tells deltas, Unix timestamps and ms timestamps apart', () => {
    expect(resetToEpochMs(0, NOW)).toBe(NOW);
    expect(resetToEpochMs(60, NOW)).toBe(NOW + 60_000);
    expect(resetToEpochMs(1_000_000_001, NOW)).toBe(1_000_000_001_000);
    expect(resetToEpochMs(NOW, NOW)).toBe(NOW);
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['3', 3000],
    [' 1.5 ', 1500],
    [new Date(NOW + 10_000).toUTCString(), 10_000],
    [new Date(NOW - 10_000).toUTCString(), 0],
    ['soon', undefined],
    ['-5', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, expected) => {
    expect(retryAfterMs(value, NOW)).toBe(expected);
  });
});

describe('waitHintMs', () => {
  const headers = { 'retry-after': '1', 'x-ratelimit-reset': '2' };
  /** As the classifier calls it: the rate fields extracted once. */
  const hint = (input: Omit<WaitHintInput, 'fields'>) => waitHintMs({ ...input, fields: rateFields(input.headers) });

  it('takes the longest hint: header, body and reset', () => {
    expect(hint({ headers, now: NOW, bodySeconds: [3], rateLimited: true })).toBe(3000);
    expect(hint({ headers, now: NOW, bodySeconds: [], rateLimited: true })).toBe(2000);
    expect(hint({ headers: { ...headers, ratelimit: 'limit=10, remaining=0, reset=9' }, now: NOW, rateLimited: true })).toBe(9000);
  });

  it('on a 429 that shows room left in the window (a burst cap, a gateway), ignores the reset: its other hints decide', () => {
    const burst = { 'retry-after': '1', 'x-ratelimit-remaining': '16', 'x-ratelimit-reset': '20' };
    expect(hint({ headers: burst, now: NOW, rateLimited: true })).toBe(1000);
    expect(hint({ headers: { ...burst, 'x-ratelimit-remaining': '0' }, now: NOW, rateLimited: true })).toBe(20_000);
    expect(hint({ headers: { ratelimit: '"window";r=16;t=20', 'retry-after': '1' }, now: NOW, rateLimited: true })).toBe(1000);
    // Nothing else to go on: no hint, so the retry backs off on its own.
    expect(hint({ headers: { 'x-ratelimit-remaining': '16', 'x-ratelimit-reset': '20' }, now: NOW, rateLimited: true })).toBeUndefined();
  });

  it('ignores the window reset unless rate limited', () => {
    expect(hint({ headers, now: NOW, rateLimited: false })).toBe(1000);
  });

  it('reads numeric strings in the body and skips junk', () => {
    expect(hint({ headers: {}, now: NOW, bodySeconds: ['4', 'later', null, -1], rateLimited: true })).toBe(4000);
  });

  it('is undefined without any hint', () => {
    expect(hint({ headers: {}, now: NOW, rateLimited: true })).toBeUndefined();
    expect(hint({ headers: { 'retry-after': 'whenever' }, now: NOW, rateLimited: true })).toBeUndefined();
  });

  it('joins repeated headers', () => {
    expect(draftLimits({ ratelimit: ['"a";r=9;t=1', '"b";r=2;t=4'] })).toEqual({ remaining: 2, reset: 4 });
  });
});
