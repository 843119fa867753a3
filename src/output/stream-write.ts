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
 * Writes `text` and resolves once the stream will take more: at once when `write` returned true,
 * else on 'drain'. A stream that errors or closes while we wait rejects instead of hanging.
 */
export function writeText(out: Writable, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  if (out.destroyed || out.writableEnded) return Promise.reject(new OutputClosedError());
  if (out.write(text)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const done = () => {
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
