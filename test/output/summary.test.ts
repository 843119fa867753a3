import { describe, expect, it } from 'vitest';
import { newRunStats } from '../../src/core/run.js';
import { formatElapsed, formatRate, formatSummary } from '../../src/output/summary.js';

describe('formatSummary', () => {
  it('states every counter in stable wording', () => {
    const stats = newRunStats(1_000);
    Object.assign(stats, { rows: 1000, written: 1000, requests: 955, lookups: 950, duplicates: 40, cacheHits: 120, billed: 940, invalid: 10, failed: 2, retries: 5, rateLimited: 3 });
    expect(formatSummary(stats, 1_000 + 4_200)).toBe(
      [
        'rows: 1000, lookups sent: 950, duplicates saved: 40, cache hits: 120',
        'invalid: 10, failed: 2, retries: 5, 429s: 3, lookups billed: 940',
        // Every request that went out, retries included: 955 over 4.2 s.
        'elapsed: 4.2s, rate: 227.4 requests/s',
      ].join('\n'),
    );
  });

  it('says how many rows were written when a run stopped early', () => {
    const stats = newRunStats(0);
    Object.assign(stats, { rows: 80, written: 64, requests: 64, lookups: 64 });
    expect(formatSummary(stats, 0).split('\n')[0]).toBe('rows: 80 (64 written), lookups sent: 64, duplicates saved: 0, cache hits: 0');
    expect(formatSummary(stats, 0).split('\n')[2]).toBe('elapsed: 0.0s, rate: n/a requests/s');
  });
});

describe('formatElapsed and formatRate', () => {
  it.each([
    [0, '0.0s'],
    [850, '0.9s'],
    [9_949, '9.9s'],
    [9_960, '10s'],
    [12_400, '12s'],
    [185_000, '3m 05s'],
    [3_723_000, '1h 02m 03s'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });

  it('divides by seconds', () => {
    expect(formatRate(300, 2_000)).toBe('150.0');
    expect(formatRate(1, 3_000)).toBe('0.3');
    expect(formatRate(5, 0)).toBe('n/a');
  });
});
