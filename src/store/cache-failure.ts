// The cache's one warning: what went wrong in words, and what the user can do about it. Clearing
// helps a damaged file, and only that: advised for a file numintel may not read, it would delete a
// healthy cache.
import { FileRefusedError } from '../fs/regular-file.js';

export interface CacheFailure {
  readonly reason: string;
  readonly remedy: string;
}

/** A file of the cache that holds no LMDB database LMDB could open safely. */
export class DamagedCacheError extends Error {
  readonly code = 'EDAMAGED';
  constructor(path: string, problem: string) {
    super(`${path} is damaged: ${problem}`);
  }
}

/** What went wrong in words, without a stack. */
export function reason(err: unknown): string {
  if (err instanceof FileRefusedError) return `${err.path}: ${err.message}`;
  if (err instanceof DamagedCacheError) return err.message;
  const e = err as NodeJS.ErrnoException;
  return e?.code && !String(e.message).includes(e.code) ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}

/** What the user can do about it. */
export function remedy(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'numintel may not read or write there (see the owner and mode of the cache directory and its files): NUMINTEL_CACHE_DIR chooses another place';
  if (code === 'ENOTDIR' || code === 'EISDIR' || code === 'NOT_REGULAR') return 'something else is in its place: NUMINTEL_CACHE_DIR chooses another';
  if (code === 'ENOENT') return 'its directory cannot be made there: NUMINTEL_CACHE_DIR chooses another place';
  return '`numintel cache clear` starts it afresh';
}

export function cacheFailure(err: unknown): CacheFailure {
  return { reason: reason(err), remedy: remedy(err) };
}
