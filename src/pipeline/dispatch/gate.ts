// The concurrency limit of one client (a library `createClient`, or one CLI process): requests in
// flight across every run and call it makes, like the pacer one object owned by the session and
// handed to each run (RunDeps.gate). A run that finds the gate full waits its turn: each freed
// slot wakes the waiting runs in the order they began to wait, so one long bulk() cannot keep the
// slots from a lookup() that came later. Answers from a cache never come here.
import { checkCount } from '../check-count.js';

export class ConcurrencyGate {
  /** Requests in flight through this gate, across all runs. */
  inFlight = 0;
  /** Runs with work that found the gate full, each by its wake-up (a Set keeps their order). */
  private readonly waiting = new Set<() => void>();

  constructor(readonly limit: number) {
    checkCount('concurrency', limit, 1);
  }

  get free(): boolean {
    return this.inFlight < this.limit;
  }

  /** One request goes out; the caller checked `free`. */
  take(): void {
    this.inFlight += 1;
  }

  /**
   * One request came back: the runs waiting for a slot each get a chance at it, oldest first.
   * `self`, the run that sent it, is not woken: it tries again itself right after, behind them.
   */
  release(self?: () => void): void {
    this.inFlight -= 1;
    if (self) this.waiting.delete(self);
    if (this.waiting.size === 0) return;
    const woken = [...this.waiting];
    this.waiting.clear();
    // A run that takes the slot and still has work waits again, behind the others.
    for (const wake of woken) wake();
  }

  /** `wake` is called once, when a slot is freed (unless `leave` comes first). */
  wait(wake: () => void): void {
    this.waiting.add(wake);
  }

  leave(wake: () => void): void {
    this.waiting.delete(wake);
  }
}
