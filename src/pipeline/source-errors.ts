// Input that cannot be read is the user's to fix (exit 2), so read failures become usage errors
// that name the input and say why in words rather than errno codes.
import { NumintelError, usageError } from '../core/errors.js';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

export function readError(err: unknown, label: string): NumintelError {
  if (err instanceof NumintelError) return err;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const reason = (typeof code === 'string' ? REASONS[code] : undefined) ?? (err instanceof Error ? err.message : String(err));
  return usageError(`cannot read ${label}: ${reason}`);
}
