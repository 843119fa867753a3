// Clocks for tests, so that nothing waits on real time: virtual time that runs itself (FakeClock),
// time that moves only when the test (or a sleep) moves it (steppedClock), and time that stands still.
import type { Clock } from '../../src/core/clock.js';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * Virtual time. `sleep` resolves when time passes its deadline: by `advance(ms)`, or, with `auto`,
 * by jumping to the earliest deadline whenever the program has nothing else to do (no pending
 * microtasks: checked on setImmediate, since fakes do no real I/O).
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];
  private checking = false;
  fired = 0;

  constructor(start = 1_700_000_000_000, private readonly auto = true) {
    this.t = start;
  }

  // Bound, so that `now` can be handed on alone (startSandbox takes `{ now }`).
  readonly now = (): number => this.t;

  get pending(): number {
    return this.timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve: () => {} };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal?.reason);
      };
      timer.resolve = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      if (this.auto) this.scheduleCheck();
    });
  }

  /** Moves time forward by `ms`, firing due timers in order and letting each one's work settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await idle();
    for (let next = this.timers[0]; next && next.at <= end; next = this.timers[0]) {
      this.fire();
      await idle();
    }
    this.t = end;
  }

  private fire(): void {
    const timer = this.timers.shift();
    if (!timer) return;
    this.t = Math.max(this.t, timer.at);
    this.fired += 1;
    timer.resolve();
  }

  private scheduleCheck(): void {
    if (this.checking) return;
    this.checking = true;
    setImmediate(() => {
      this.checking = false;
      if (this.timers.length === 0) return;
      this.fire();
      this.scheduleCheck();
    });
  }
}

/** Resolves once every pending microtask (and promise chain) has run. */
export const idle = () => new Promise<void>((r) => setImmediate(r));

/** Time stands still unless a test moves it (`advance`) or the program sleeps (which moves it at once). */
export function steppedClock(start: number): Clock & { advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** Time stands still at `t`; a sleep returns at once. */
export function fixedClock(t: number): Clock {
  return { now: () => t, sleep: async () => {} };
}
