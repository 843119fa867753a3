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

/**
 * `read()` (a command reading its whole input, e.g. a dry run or a report), ended by Ctrl-C also
 * while it waits for more input: `cancel()` stops the reading (a destroyed stream ends or fails
 * the loop over it), and whatever the loop then did, the result is an InterruptedError saying
 * what was cut short.
 */
export async function readUnlessInterrupted<T>(read: () => Promise<T>, signal: AbortSignal | undefined, cancel: () => void, doing: string): Promise<T> {
  if (!signal) return read();
  const interrupted = () => new InterruptedError(`interrupted while ${doing}`);
  if (signal.aborted) throw interrupted();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const result = await read();
    if (signal.aborted) throw interrupted();
    return result;
  } catch (err) {
    throw signal.aborted ? interrupted() : err;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
