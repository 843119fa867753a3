// A write that failed (a full disk, a read-only or vanished file system) is the user's to fix, not
// a bug: one line naming the output and the reason, with the code for a search, and exit 2.
import { NumintelError, OutputError } from '../core/errors.js';
import { ioReasonWithCode } from '../core/io-errors.js';

/** "cannot write out.csv: no space left on device (ENOSPC)". */
export function writeError(err: unknown, label: string): NumintelError {
  if (err instanceof NumintelError) return err;
  return new OutputError(writeFailure(err, label));
}

/** The message alone, for where no error object can be thrown (stdout's error handler). */
export function writeFailure(err: unknown, label: string): string {
  return `cannot write ${label}: ${ioReasonWithCode(err)}`;
}
