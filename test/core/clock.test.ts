// The system clock's sleep past what one Node timer holds (about 24.9 days): it must wait the
// whole time, not fire at once in a loop (a server's absurd wait hint used to do that).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/core/clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('systemClock.sleep', () => {
  it('sleeps longer than one timer can, in steps, and no sooner', async () => {
    vi.useFakeTimers();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const ms = 3 * 2 ** 31 + 5;
    let done = false;
    const sleeping = systemClock.sleep(ms).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(ms - 10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    await sleeping;
    expect(done).toBe(true);
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });

  it('an abort ends a long sleep at once', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(10 * 2 ** 31, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });
});
