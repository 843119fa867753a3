// Reading a file that may be a FIFO (a named pipe) without blocking a libuv thread. fs opens a
// FIFO in the thread pool, where open() waits for a writer; a process whose pool thread is stuck
// there cannot even exit (libuv joins its threads at exit), so Ctrl-C would print "interrupted"
// and hang. Opened non-blocking, the FIFO is read as a pipe on the event loop instead: Linux
// reports no end of input before a first writer has come, so a writer that comes later is read.
import { constants, createReadStream, open, promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';
import { FileRefusedError, kindOf } from '../../fs/regular-file.js';

export interface InputOptions {
  /** Last byte offset read. */
  readonly end?: number;
  /** The read size. */
  readonly highWaterMark?: number;
  /** Refuses anything but a regular file or a FIFO (a device, a directory, a socket): FileRefusedError. */
  readonly fileOrPipe?: boolean;
}

/** A FIFO as a pipe on the event loop; anything else as a file stream. */
export async function openInput(path: string, { fileOrPipe, ...options }: InputOptions = {}): Promise<Readable> {
  const info = await fs.stat(path);
  if (fileOrPipe && !info.isFile() && !info.isFIFO()) throw new FileRefusedError(path, 'NOT_REGULAR', `it is ${kindOf(info)}, not a file or a pipe`);
  if (!info.isFIFO()) return createReadStream(path, options);
  // A plain descriptor, not a FileHandle: the socket owns it from here on and closes it once.
  const fd = await new Promise<number>((resolve, reject) => open(path, constants.O_RDONLY | constants.O_NONBLOCK, (err, n) => (err ? reject(err) : resolve(n))));
  // node:net only here: loading it is a millisecond or two of every run, and a FIFO is rare.
  const { Socket } = await import('node:net');
  return new Socket({ fd, readable: true, writable: false });
}
