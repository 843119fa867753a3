// What the run's counters say about requests: a lookup counts once it went out, a retry only when
// an earlier attempt of it reached the service, and an attempt that never left (no connection)
// not at all.
import { describe, expect, it } from 'vitest';
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
});
