// A wait that Ctrl-C ends: a FIFO with no writer, or a silent pipe, would otherwise hold the
// command for ever while the signal is heard and ignored.
import { InterruptedError } from './errors.js';

/** `work`, unless `signal` aborts first: then `cancel()` and an InterruptedError saying what was `waitingFor`. */
export function unlessInterrupted<T>(work: Promise<T>, signal: AbortSignal | undefined, cancel: () => void, waitingFor: string): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      cancel();
      reject(new InterruptedError(`interrupted while ${waitingFor}`));
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
