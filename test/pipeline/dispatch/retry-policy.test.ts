// The one retry decision, and --max-wait: a server hint longer than the cap stops the run
// resumably (never handed to a timer), whatever answer carried it.
import { describe, expect, it } from 'vitest';
import type { LookupRecord } from '../../../src/core/records.js';
import { isTransient, TRANSIENT } from '../../../src/core/records.js';
import { decideRetry, formatWait, RATE_LIMITED_RETRIES } from '../../../src/pipeline/dispatch/retry.js';
import { stopFailure } from '../../../src/pipeline/stop-failure.js';
import { CircuitBreaker } from '../../../src/pipeline/dispatch/breaker.js';
import { harness, httpError, invalid, ok, refused, runAll, serverError, tooMany } from '../fakes.js';
import { numbers } from '../../support/numbers.js';

const policy = { retries: 3, maxWaitMs: 300_000, random: () => 0.5 };
const NOW = 1_700_000_000_000;
/** A lookup's tries so far: `retries` in all, `rateLimited` of them after a 429. */
const tries = (retries: number, rateLimited = 0) => ({ retries, rateLimited });

describe('decideRetry', () => {
  it('a transient failure within its retries is retried after the jittered backoff or the longer hint', () => {
    expect(decideRetry(serverError(), tries(0), policy, NOW)).toEqual({ action: 'retry', waitMs: 125 });
    expect(decideRetry(tooMany(4000), tries(1), policy, NOW)).toEqual({ action: 'retry', waitMs: 4000 });
  });

  it('a final answer, or a transient one out of retries, is done', () => {
    for (const a of [ok({ lrn: 'x' }), invalid(), httpError(404), refused(401)]) expect(decideRetry(a, tries(0), policy, NOW)).toEqual({ action: 'done' });
    expect(decideRetry(serverError(), tries(3), policy, NOW)).toEqual({ action: 'done' });
  });

  it('a 429 is waited out without spending --retries (which bounds 5xx, resets and timeouts), up to RATE_LIMITED_RETRIES of them', () => {
    // --retries 3 spent on 5xx: another 5xx is done, a 429 is still retried.
    expect(decideRetry(serverError(), tries(5, 2), policy, NOW)).toEqual({ action: 'done' });
    expect(decideRetry(tooMany(1000), tries(5, 2), policy, NOW).action).toBe('retry');
    // --retries 0: a 429 is retried all the same; a 5xx is not.
    const none = { ...policy, retries: 0 };
    expect(decideRetry(tooMany(1000), tries(0), none, NOW)).toEqual({ action: 'retry', waitMs: 1000 });
    expect(decideRetry(serverError(), tries(1, 1), none, NOW)).toEqual({ action: 'done' });
    // A service answering nothing but 429 still ends the lookup.
    expect(decideRetry(tooMany(1000), tries(RATE_LIMITED_RETRIES - 1, RATE_LIMITED_RETRIES - 1), policy, NOW).action).toBe('retry');
    expect(decideRetry(tooMany(1000), tries(RATE_LIMITED_RETRIES, RATE_LIMITED_RETRIES), policy, NOW)).toEqual({ action: 'done' });
  });

  it('an answer that arrived but could not be read is retried once at most, whatever --retries allows', () => {
    const unreadable = { kind: 'retry', rateLimited: false, once: true, error: { code: 'bad_response', message: 'x' } } as const;
    expect(decideRetry(unreadable, tries(0), policy, NOW).action).toBe('retry');
    expect(decideRetry(unreadable, tries(1), policy, NOW)).toEqual({ action: 'done' });
    expect(decideRetry(unreadable, tries(0), { ...policy, retries: 0 }, NOW)).toEqual({ action: 'done' });
  });

  it('a hint past maxWaitMs stops, on a 429 and on a success whose window is spent until later', () => {
    expect(decideRetry(tooMany(3_600_000), tries(0), policy, NOW)).toEqual({ action: 'stop', hintMs: 3_600_000 });
    expect(decideRetry(tooMany(86_400_000), tries(5), policy, NOW)).toEqual({ action: 'stop', hintMs: 86_400_000 });
    expect(decideRetry(ok({ lrn: 'x' }, { remaining: 0, resetAt: NOW + 3 * 86_400_000 }), tries(0), policy, NOW)).toEqual({ action: 'stop', hintMs: 3 * 86_400_000 });
    // At the cap exactly, obeyed.
    expect(decideRetry(tooMany(300_000), tries(0), policy, NOW)).toMatchObject({ action: 'retry', waitMs: 300_000 });
    expect(decideRetry(ok({ lrn: 'x' }, { remaining: 0, resetAt: NOW + 10_000 }), tries(0), policy, NOW)).toEqual({ action: 'done' });
  });

  it('one list of transient conditions, the breaker counting the same', () => {
    expect([...TRANSIENT].sort()).toEqual(['network_error', 'rate_limited', 'server_error', 'timeout']);
    expect(isTransient('invalid_number')).toBe(false);
    const breaker = new CircuitBreaker(2);
    expect(breaker.record([{ code: 'rate_limited', message: '' }])).toBe(false);
    expect(breaker.record([{ code: 'network_error', message: '' }])).toBe(true);
  });

  it('waits read as a person would say them', () => {
    expect([formatWait(42_000), formatWait(3_600_000), formatWait(86_400_000), formatWait(3 * 86_400_000), formatWait(5 * 365 * 86_400_000)]).toEqual(['42 s', '60 min', '24 h', '3 days', '5 years']);
  });
});

describe('runner: --max-wait', () => {
  it('a 429 asking for an hour stops the run at once: the rows before are written, no timer of an hour is set', async () => {
    const input = numbers(3);
    const h = harness({ script: { [input[1] as string]: [tooMany(3_600_000)] } });
    const { records, outcome } = await runAll(h, input, {}, { concurrency: 1 });
    expect(records.map((r) => r.input)).toEqual([input[0]]);
    expect(outcome.stopped).toMatchObject({ reason: 'wait', hintMs: 3_600_000, error: { code: 'rate_limited' } });
    expect(h.clock.now() - h.stats.startedAt).toBeLessThan(10_000);
    const err = stopFailure(outcome.stopped!, 'run the same command again with --resume to continue out.csv');
    expect(err).toMatchObject({ code: 'NUMINTEL_WAIT_TOO_LONG', kind: 'stopped' });
    expect(err.message).toBe('stopped: the service asked to wait 60 min, longer than --max-wait allows (rate limit exceeded)');
    expect(err.hint).toBe('after that wait, run the same command again with --resume to continue out.csv; or raise --max-wait <seconds>');
  });

  it('a success whose window is spent for 3 days is written, then the run stops', async () => {
    const input = numbers(3);
    const h = harness({ script: { [input[0] as string]: [ok({ lrn: 'A' }, { remaining: 0, resetAt: 1_700_000_000_000 + 3 * 86_400_000 })] } });
    const { records, outcome } = await runAll(h, input, {}, { concurrency: 1 });
    expect(records).toHaveLength(1);
    expect((records[0] as LookupRecord).result).toEqual({ lrn: 'A' });
    expect(outcome.stopped).toMatchObject({ reason: 'wait', hintMs: 3 * 86_400_000 });
  });

  it('a hint within --max-wait is obeyed', async () => {
    const input = numbers(1);
    const h = harness({ script: { [input[0] as string]: [tooMany(20_000), ok({ lrn: 'B' })] } });
    const { records, outcome } = await runAll(h, input, {}, { maxWaitMs: 30_000 });
    expect(outcome.stopped).toBeNull();
    expect((records[0] as LookupRecord).ok).toBe(true);
    const at = h.transport.calls.map((c) => c.at);
    expect((at[1] as number) - (at[0] as number)).toBeGreaterThanOrEqual(20_000);
  });
});
