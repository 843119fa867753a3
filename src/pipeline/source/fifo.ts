// Reading a file that may be a FIFO (a named pipe) without blocking a libuv thread. fs opens a
// FIFO in the thread pool, where open() waits for a writer; a process whose pool thread is stuck
// there cannot even exit (libuv joins its threads at exit), so Ctrl-C would print "interrupted"
// and hang. Opened non-blocking, the FIFO is read as a pipe on the event loop instead: Linux
// reports no end of input before a first writer has come, so a writer that comes later is read.
import { constants, createReadStream, open, promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';

/** A FIFO as a pipe on the event loop; anything else as a file stream (`end`: last byte offset; `highWaterMark`: its read size). */
export async function openInput(path: string, options: { end?: number; highWaterMark?: number } = {}): Promise<Readable> {
  const info = await fs.stat(path);
  if (!info.isFIFO()) return createReadStream(path, options);
  // A plain descriptor, not a FileHandle: the socket owns it from here on and closes it once.
  const fd = await new Promise<number>((resolve, reject) => open(path, constants.O_RDONLY | constants.O_NONBLOCK, (err, n) => (err ? reject(err) : resolve(n))));
  // node:net only here: loading it is a millisecond or two of every run, and a FIFO is rare.
  const { Socket } = await import('node:net');
  return new Socket({ fd, readable: true, writable: false });
}
