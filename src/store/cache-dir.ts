// Where the persistent lookup cache lives: NUMINTEL_CACHE_DIR, else the XDG cache home, else ~/.cache.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { userDir, type Env } from '../settings/config-dir.js';

export function cacheDir(env: Env, home: string): string {
  return userDir(env, home, 'NUMINTEL_CACHE_DIR', 'XDG_CACHE_HOME', '.cache');
}

/** The database file in the cache directory (LMDB keeps a `-lock` file beside it). */
export const CACHE_FILE_NAME = 'answers.mdb';

/**
 * mkdir -p, one level at a time: Node's own recursive mkdir never returns for a path under /proc
 * (measured on Node 20), and a cache must never hang a run.
 */
export function makeDir(dir: string, depth = 0): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
      return;
    }
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir || depth > 64) throw err;
    makeDir(parent, depth + 1);
    mkdirSync(dir, { mode: 0o700 });
  }
}
