// What the run's counters say about requests: a lookup counts once it went out, a retry only when
// an earlier attempt of it reached the service, and an attempt that never left (no connection)
// not at all.
import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST } from '../../src/core/lookups.js';
import type { Attempt } from '../../src/core/transport.js';
import { SpendCap } from '../../src/pipeline/dispatch/spend-cap.js';
import { harness, ok, runAll, serverError } from './fakes.js';

const refusedConnection: Attempt = {
  kind: 'retry',
  rateLimited: false,
  error: { code: 'network_error', message: 'connection refused (ECONNREFUSED)' },
  unsent: true,
};

describe('runner: request counts', () => {
  it('attempts that never left are not counted; the first that did is the lookup, later ones retries', async () => {
    const [a, b, c] = ['12015551000', '12015551001', '12015551002'];
    const h = harness({
      script: {
        [a]: [refusedConnection, refusedConnection, ok({ lrn: 'A' })],
        [b]: [serverError(), refusedConnection, ok({ lrn: 'B' })],
        [c]: [refusedConnection],
      },
    });
    const { records } = await runAll(h, [a, b, c, a], {}, { retries: 3, rates: { lrn: 0 } });
    expect(records.map((r) => r.ok)).toEqual([true, true, false, true]);
    // a: one request arrived; b: two (the 503 and the answer); c: none ever left.
    expect(h.stats).toMatchObject({ rows: 4, lookups: 2, retries: 1, requests: 3, duplicates: 1, failed: 1 });
    expect(h.transport.calls).toHaveLength(3 + 3 + 4);
  });

  it('a duplicate counts as saved once its answer came: not when the run stopped before the number was sent', async () => {
    const [a, b, c] = ['12015551000', '12015551001', '12015551002'];
    const h = harness({ latency: () => 10 });
    // Two requests at a time and a cap of two: a and b go out, c waits for a slot with its two
    // duplicates joined to it, and the cap stops the run when c's turn comes.
    const { outcome } = await runAll(h, [a, b, c, c, c, a, b], {}, { rates: { lrn: 0 }, concurrency: 2, cap: new SpendCap({ maxLookups: 2 }) });
    expect(outcome.stopped?.reason).toBe('cap');
    expect(h.transport.calls).toHaveLength(2);
    // a's and b's later rows were answered from their one request each; c's waited for nothing.
    expect(h.stats).toMatchObject({ rows: 7, lookups: 2, duplicates: 2 });
  });

  it('enrich under a cap: whole rows or none, a duplicate row needs no room, and the run ends after the rows it admitted', async () => {
    const [a, b, c, d] = ['12015551000', '12015551001', '12015551002', '12015551003'];
    const h = harness({ latency: () => 10 });
    const cap = new SpendCap({ maxLookups: 10 });
    const { records, outcome } = await runAll(h, [a, b, a, c, d], { mode: 'enrich', lookups: [LRN, CNAM, TRUST] }, { rates: { lrn: 0, cnam: 0, trust: 0 }, concurrency: 1, cap });
    expect(outcome.stopped?.reason).toBe('cap');
    // a, b and c take 9; d's three do not fit in the 1 left, and d is not read.
    expect(records.map((r) => r.number)).toEqual([a, b, a, c]);
    expect(records.every((r) => r.ok)).toBe(true);
    expect(h.transport.calls).toHaveLength(9);
    expect(h.stats).toMatchObject({ rows: 4, lookups: 9, duplicates: 3 });
    expect(cap.take('lrn')).toBe(true);
    expect(cap.take('lrn')).toBe(false);
  });

  it('what a stopped enrich run reserved and never sent goes back to the cap, for the next run that shares it', async () => {
    const [a, b, c] = ['12015551000', '12015551001', '12015551002'];
    const h = harness({ latency: () => 10, script: { [`lrn:${a}`]: [serverError()] } });
    const cap = new SpendCap({ maxLookups: 6 });
    // One request at a time: a's two go out, a fails, the breaker (at one failed row) stops the run
    // with b's and c's reserved requests still queued.
    const { outcome } = await runAll(h, [a, b, c], { mode: 'enrich', lookups: [LRN, CNAM] }, { rates: { lrn: 0, cnam: 0 }, concurrency: 1, retries: 0, breakerThreshold: 1, cap });
    expect(outcome.stopped?.reason).toBe('breaker');
    expect(h.transport.calls).toHaveLength(2);
    for (let i = 0; i < 4; i++) expect(cap.take('lrn')).toBe(true);
    expect(cap.take('lrn')).toBe(false);
  });
});
