// What the run's counters say about requests: a lookup counts once it went out, a retry only when
// an earlier attempt of it reached the service, and an attempt that never left (no connection)
// not at all.
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/core/transport.js';
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
});
