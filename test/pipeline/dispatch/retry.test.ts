import { describe, expect, it } from 'vitest';
import type { LookupRecord } from '../../../src/core/records.js';
import { backoffMs, retryDelayMs } from '../../../src/pipeline/dispatch/retry.js';
import type { RetryInfo } from '../../../src/pipeline/runner.js';
import { harness, httpError, ok, runAll, serverError } from '../fakes.js';

describe('retry policy', () => {
  it('full jitter: uniform below min(cap, base·2^(n-1))', () => {
    expect(backoffMs(1, () => 0.999)).toBe(249);
    expect(backoffMs(3, () => 0.5)).toBe(500);
    expect(backoffMs(20, () => 0.999)).toBe(29_970);
    expect(backoffMs(4, () => 0)).toBe(0);
  });

  it('a service hint is a floor, never shortened', () => {
    expect(retryDelayMs(1, 5000, () => 0.5)).toBe(5000);
    expect(retryDelayMs(10, 10, () => 0.5)).toBe(15_000);
    expect(retryDelayMs(1, undefined, () => 0.5)).toBe(125);
  });
});

describe('runner: retries', () => {
  it('retries 5xx with jittered backoff inside its bounds, then succeeds', async () => {
    const h = harness({ script: { '12015551000': [serverError(), serverError(), serverError(), ok({ lrn: 'X' })] } });
    const retries: RetryInfo[] = [];
    const { records } = await runAll(h, ['12015551000'], {}, { onRetry: (i) => retries.push(i) });
    const at = h.transport.calls.map((c) => c.at);
    expect(at).toHaveLength(4);
    for (let n = 1; n <= 3; n++) {
      const gap = (at[n] as number) - (at[n - 1] as number);
      expect(gap).toBeLessThan(250 * 2 ** (n - 1));
      expect(gap).toBeGreaterThanOrEqual(retries[n - 1]?.waitMs as number);
    }
    expect(retries.map((r) => r.retry)).toEqual([1, 2, 3]);
    expect((records[0] as LookupRecord).result).toEqual({ lrn: 'X' });
    expect(h.stats).toMatchObject({ requests: 4, retries: 3, lookups: 1, failed: 0 });
  });

  it('never retries a 4xx other than 429', async () => {
    const h = harness({ script: { '12015551000': [httpError(404)] } });
    const { records } = await runAll(h, ['12015551000']);
    expect(h.transport.calls).toHaveLength(1);
    expect((records[0] as LookupRecord).error).toEqual({ code: 'http_error', message: 'HTTP 404', status: 404 });
    expect(h.stats.failed).toBe(1);
  });

  it('gives up after `retries` retries with the last error', async () => {
    const h = harness({ script: { '12015551000': [serverError(500), serverError(502), serverError(503)] } });
    const { records } = await runAll(h, ['12015551000'], {}, { retries: 2 });
    expect(h.transport.calls).toHaveLength(3);
    expect(records[0]).toMatchObject({ ok: false, result: null, error: { code: 'server_error', status: 503 } });
    expect(h.stats).toMatchObject({ requests: 3, retries: 2, failed: 1 });
  });
});
