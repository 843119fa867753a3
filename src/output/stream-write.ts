// Writing to the output stream with backpressure: a sink never gets ahead of a slow reader.
import type { Writable } from 'node:stream';

/** The output stream went away (e.g. `numintel ... | head -1`): the CLI ends the run quietly. */
export class OutputClosedError extends Error {
  override readonly name = 'OutputClosedError';
  readonly code = 'ERR_OUTPUT_CLOSED';
  constructor(cause?: unknown) {
    super('the output stream was closed', cause === undefined ? undefined : { cause });
  }
}

const CLOSED_CODES = new Set(['ERR_OUTPUT_CLOSED', 'EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** True for the ways a closed stdout shows up: our own error, EPIPE, writes after destroy/end. */
export function isOutputClosed(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLOSED_CODES.has(code);
}

/**
 * Calls `gone` once, when `out` errors or closes, and keeps listening until the returned function
 * is called (a stream with no 'error' listener left would throw on its next error). These events
 * are the one sure sign a pipe's reader left: Node's stdout and stderr never stay destroyed (their
 * destroy undoes itself, so right after an EPIPE, even after `destroy()`, `destroyed`,
 * `writableEnded` and `errored` all read as a healthy stream), and a pipe written synchronously
 * never asks for a drain, so nothing waiting for one hears of it either.
 */
export function whenGone(out: Writable, gone: (err?: Error) => void): () => void {
  let told = false;
  const tell = (err?: Error) => {
    if (told) return;
    told = true;
    gone(err);
  };
  const onError = (err: Error) => tell(err);
  const onClose = () => tell();
  out.on('error', onError);
  out.on('close', onClose);
  return () => {
    out.off('error', onError);
    out.off('close', onClose);
  };
}

/** What a write to a stream that went away rejects with: a closed pipe quietly, any other error as it is. */
const lossOf = (err?: Error): Error => (err === undefined || isOutputClosed(err) ? new OutputClosedError(err) : err);

/**
 * Resolves on 'drain'; a stream that errors or closes while we wait rejects instead of hanging.
 * `settled` runs as the event arrives, before anyone awaiting the promise hears of it.
 */
function drained(out: Writable, settled: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      settled();
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
    };
    const onDrain = () => {
      done();
      resolve();
    };
    const onError = (err: Error) => {
      done();
      reject(isOutputClosed(err) ? new OutputClosedError(err) : err);
    };
    const onClose = () => {
      done();
      reject(new OutputClosedError());
    };
    out.on('drain', onDrain);
    out.on('error', onError);
    out.on('close', onClose);
  });
}

/** Text queued for one stream, written in chunks: per event-loop turn at most, per `lingerMs` at most. */
export interface TextWriter {
  /**
   * Queues `text`. Returns nothing while the stream and the queue together hold less than the
   * stream's highWaterMark (more may follow at once), else a promise that resolves once the stream
   * drained (or rejects when it went away). Queued text reaches the stream on the next event-loop
   * turn (or `lingerMs` after the last write, if that is later), or at once when the queue is full.
   */
  write(text: string): Promise<void> | undefined;
  /**
   * Writes out everything queued, then `text` (a format's closing part), leaving the stream open;
   * resolves once the stream took it.
   */
  flush(text?: string): Promise<void>;
}

export interface TextWriterOptions {
  /** The most text held before it is written out at once (default 64 KiB). */
  readonly chunkSize?: number;
  /** The least time between two writes of the queue that is not full, ms (default 50). */
  readonly lingerMs?: number;
  /**
   * Runs the deferred flush after `delayMs` (0: on the next turn, by `setImmediate`; else by one
   * timer) and returns its cancel; a test may drive the turns itself.
   */
  readonly defer?: (flush: () => void, delayMs: number) => () => void;
  /**
   * Milliseconds, `Date.now` unless a test drives the time. Not `performance.now`: its first use
   * loads perf_hooks, a millisecond of a one-number run; a wall clock set back delays a write by
   * one `lingerMs` at most (the wait is capped).
   */
  readonly now?: () => number;
}

const CHUNK_SIZE = 64 * 1024;
const LINGER_MS = 50;

const deferByTimer = (fn: () => void, delayMs: number): (() => void) => {
  if (delayMs <= 0) {
    const immediate = setImmediate(fn);
    return () => clearImmediate(immediate);
  }
  const timer = setTimeout(fn, delayMs);
  return () => clearTimeout(timer);
};

/**
 * One `write` per record costs a syscall-sized round trip each (fs streams hand every write to the
 * thread pool, which costs more than the write itself). A lone row still shows on the next turn;
 * rows that keep coming are joined into one write per `lingerMs` (or per full queue), which keeps
 * a fast run to a few dozen writes a second whatever its row rate, with one pending wakeup at most.
 * The queue counts as part of the stream's buffer for backpressure, so memory stays within the
 * highWaterMark (or `chunkSize`) plus one text.
 */
export function createTextWriter(out: Writable, options: TextWriterOptions = {}): TextWriter {
  const chunkSize = options.chunkSize ?? CHUNK_SIZE;
  const lingerMs = options.lingerMs ?? LINGER_MS;
  const defer = options.defer ?? deferByTimer;
  const now = options.now ?? Date.now;
  let queued = '';
  let cancel: (() => void) | null = null;
  let lastPour = -Infinity;
  // One wait per drain, however many callers ask.
  let waiting: Promise<void> | null = null;
  // Set when the stream errored or closed, whatever its flags say now (see whenGone).
  let lost: { err?: Error } | undefined;
  whenGone(out, (err) => (lost = { err }));
  const isGone = () => lost !== undefined || out.destroyed || out.writableEnded;
  const gone = () => Promise.reject(lossOf(lost?.err));

  const waitForDrain = (): Promise<void> => {
    if (isGone()) return gone();
    // Forgotten at the drain itself, so a write right after it never gets this spent promise.
    waiting ??= drained(out, () => {
      waiting = null;
    });
    return waiting;
  };

  /** Hands the queue to the stream; false when the stream is now over its highWaterMark. */
  const pour = (): boolean => {
    if (cancel) {
      cancel();
      cancel = null;
    }
    if (queued === '') return !out.writableNeedDrain;
    // A stream that went away keeps the queue, so the next write or flush reports the loss.
    if (isGone()) return false;
    const text = queued;
    queued = '';
    return out.write(text);
  };

  const schedule = () => {
    const wait = Math.min(lastPour + lingerMs - now(), lingerMs);
    cancel = defer(() => {
      cancel = null;
      // Only these writes space the next: a flush or a full queue says nothing of the row rate.
      lastPour = now();
      pour();
    }, wait > 0 ? wait : 0);
  };

  return {
    write(text: string): Promise<void> | undefined {
      if (isGone()) return gone();
      queued += text;
      if (queued.length >= chunkSize || out.writableLength + queued.length >= out.writableHighWaterMark) {
        return pour() ? undefined : waitForDrain();
      }
      if (!cancel) schedule();
      return out.writableNeedDrain ? waitForDrain() : undefined;
    },
    flush(text = ''): Promise<void> {
      queued += text;
      if (queued !== '' && isGone()) return gone();
      if (queued === '' && !out.writableNeedDrain) return Promise.resolve();
      return pour() ? Promise.resolve() : waitForDrain();
    },
  };
}
