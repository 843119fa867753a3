// Input that cannot be read is the user's to fix (exit 2), so read failures become usage errors
// that name the input and say why in words rather than errno codes.
import { InputError, NumintelError } from '../../core/errors.js';
import { ioReason } from '../../core/io-errors.js';

export function readError(err: unknown, label: string): NumintelError {
  if (err instanceof NumintelError) return err;
  return new InputError(`cannot read ${label}: ${ioReason(err)}`);
}
