// A stop signal for numintel's own runs: what its code reads of an AbortSignal (aborted, reason,
// 'abort' listeners, throwIfAborted), without Node's EventTarget. A one-number run made four
// AbortControllers and aborted two, and Node compiled its EventTarget, Event and AbortSignal code
// on their first calls, in every run (README, Design › Start-up). What takes a signal takes either
// kind: a library caller's AbortSignal, or a Stop.

/** The part of an AbortSignal numintel reads: an AbortSignal is one, and so is a Stop. */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  /** Throws `reason` once aborted. */
  throwIfAborted(): void;
}

/** An AbortController and its signal in one (`stop.signal` is the stop itself), as AbortSignal behaves. */
export class Stop implements StopSignal {
  aborted = false;
  reason: unknown = undefined;
  private readonly listeners = new Set<() => void>();

  get signal(): StopSignal {
    return this;
  }

  /**
   * Aborts once (later calls do nothing) and calls each listener once, in the order added. A
   * listener that throws does not keep the others from being called; its error is thrown after.
   */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    let failed: { readonly error: unknown } | undefined;
    // One a listener removes before its turn is not called (a Set's iteration skips it).
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        failed ??= { error };
      }
    }
    this.listeners.clear();
    if (failed) throw failed.error;
  }

  /** A listener added twice is heard once; one added after the abort, never (as for an AbortSignal). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.delete(listener);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}
