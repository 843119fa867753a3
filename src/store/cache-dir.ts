// Where the persistent lookup cache lives: NUMINTEL_CACHE_DIR, else the XDG cache home, else ~/.cache.
import { isAbsolute, join } from 'node:path';
import { envValue, type Env } from '../settings/config-dir.js';

export function cacheDir(env: Env, home: string): string {
  const own = envValue(env, 'NUMINTEL_CACHE_DIR');
  if (own) return own;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = envValue(env, 'XDG_CACHE_HOME');
  if (xdg && isAbsolute(xdg)) return join(xdg, 'numintel');
  return join(home, '.cache', 'numintel');
}

/** The database file in the cache directory (LMDB keeps a `-lock` file beside it). */
export const CACHE_FILE_NAME = 'answers.mdb';
