// Files numintel reads (the config, a key file, a report's input, the cache's files) must be
// regular files: a FIFO would block the read (past SIGTERM: a blocked read holds the thread), a
// device such as /dev/zero never ends, and a directory or a device mapped by LMDB crashes the
// process. So each is opened without blocking (O_NONBLOCK: a FIFO opens at once, and a read of a
// FIFO nobody writes returns nothing), its kind checked on the descriptor it is read through
// (fstat: no window between the check and the read), and read with a bound.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { ioReasonWithCode } from '../core/io-errors.js';

/** Why a file was refused: not a regular file, or larger than the bound. `code` as Node's errors have one. */
export class FileRefusedError extends Error {
  constructor(
    readonly path: string,
    readonly code: 'NOT_REGULAR' | 'TOO_LARGE',
    why: string,
  ) {
    super(why);
    this.name = 'FileRefusedError';
  }
}

/** What a file is, in words ("a directory", "a FIFO"…), for a message. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Opens `path` to read, without blocking, and checks that it is a regular file; the descriptor and
 * its stats, for the caller to close. Throws Node's error (ENOENT, EACCES…) or FileRefusedError.
 */
export function openRegularFile(path: string): { fd: number; info: Stats } {
  const fd = openSync(path, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new FileRefusedError(path, 'NOT_REGULAR', `it is ${kindOf(info)}, not a regular file`);
    return { fd, info };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * The whole of a regular file of at most `maxBytes`. Throws Node's error (ENOENT, EACCES…) or
 * FileRefusedError: not a regular file, or larger than the bound (checked as read, too: a file
 * that grows while it is read is cut at the bound, not read without end).
 */
export function readRegularFile(path: string, maxBytes: number): { bytes: Buffer; info: Stats } {
  const { fd, info } = openRegularFile(path);
  try {
    if (info.size > maxBytes) throw tooLarge(path, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooLarge(path, maxBytes);
    }
    return { bytes: Buffer.concat(chunks, total), info };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(path: string, maxBytes: number): FileRefusedError {
  return new FileRefusedError(path, 'TOO_LARGE', `it is larger than ${maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes} bytes`}`);
}

/** What went wrong reading a file, in words: the refusal's reason, or the error's ("permission denied (EACCES)"). */
export function fileProblem(err: unknown): string {
  return err instanceof FileRefusedError ? err.message : ioReasonWithCode(err);
}
