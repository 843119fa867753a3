import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../../src/core/lookups.js';
import type { LookupRecord } from '../../../src/core/records.js';
import { buildRecord, newRow } from '../../../src/pipeline/order/records-build.js';

/** The record of a row answered at `ms`. */
function fetchedAt(ms: number): string | null {
  const row = newRow({ index: 0, input: '12015550123' }, '12015550123', 1);
  row.results[0] = { lrn: '12015550123' };
  row.fetchedAt[0] = ms;
  row.unanswered = 0;
  return (buildRecord(row, 'single', [LRN]) as LookupRecord).fetched_at;
}

describe('buildRecord', () => {
  it("writes fetched_at as Date's ISO text, for times in any order", () => {
    // Rows come out in input order, so their times go back and forth across seconds.
    const times = fc.oneof(
      fc.integer({ min: 1_763_877_600_000, max: 1_763_877_603_000 }),
      fc.integer({ min: -62_198_755_200_000, max: 253_402_300_799_999 }),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(times, { minLength: 1, maxLength: 20 }), (list) => {
        for (const ms of list) expect(fetchedAt(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 500 },
    );
    for (const ms of [0, 999, 1000, 1001, 1_763_877_600_009, 1_763_877_600_099, 1_763_877_600_100, 951_782_399_999, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15]) expect(fetchedAt(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes no fetched_at for a time no Date can show, rather than ending the run', () => {
    for (const ms of [9e15, -9e15, Number.NaN, Number.POSITIVE_INFINITY]) expect(fetchedAt(ms)).toBeNull();
  });
});
