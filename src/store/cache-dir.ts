// Where the persistent lookup cache lives: NUMINTEL_CACHE_DIR, else the XDG cache home, else ~/.cache.
import { userDir, type Env } from '../settings/config-dir.js';

export function cacheDir(env: Env, home: string): string {
  return userDir(env, home, 'NUMINTEL_CACHE_DIR', 'XDG_CACHE_HOME', '.cache');
}

/** The database file in the cache directory (LMDB keeps a `-lock` file beside it). */
export const CACHE_FILE_NAME = 'answers.mdb';
