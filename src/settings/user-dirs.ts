// Where numintel keeps its files: settings in NUMINTEL_CONFIG_DIR, else the XDG config home, else
// ~/.config; the lookup cache in NUMINTEL_CACHE_DIR, else the XDG cache home, else ~/.cache; the
// launcher's code caches in NUMINTEL_CODE_CACHE_DIR, else code/ in the cache directory. One
// resolver for every part of numintel: the launcher loads this file too (scripts/build.js).
import { isAbsolute, join } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** An empty variable counts as unset, as shells make `VAR= cmd` the usual way to clear one. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * numintel's own directory of one XDG kind: `own` (NUMINTEL_…_DIR) when set, else `<$xdg>/numintel`,
 * else `~/<fallback>/numintel`. The XDG spec says a relative XDG_* value is invalid and ignored.
 */
export function userDir(env: Env, homedir: string, own: string, xdg: string, fallback: string): string {
  const dir = envValue(env, own);
  if (dir) return dir;
  const base = envValue(env, xdg);
  if (base && isAbsolute(base)) return join(base, 'numintel');
  return join(homedir, fallback, 'numintel');
}

export function configDir(env: Env, homedir: string): string {
  return userDir(env, homedir, 'NUMINTEL_CONFIG_DIR', 'XDG_CONFIG_HOME', '.config');
}

const CONFIG_FILE_NAME = 'config.json';

export function configFilePath(env: Env, homedir: string): string {
  return join(configDir(env, homedir), CONFIG_FILE_NAME);
}

/** The lookup cache's directory. */
export function cacheDir(env: Env, homedir: string): string {
  return userDir(env, homedir, 'NUMINTEL_CACHE_DIR', 'XDG_CACHE_HOME', '.cache');
}

/** The launcher's code caches (bin/numintel.js), and where the bundle keeps lmdb's binding's path. */
export function codeCacheDir(env: Env, homedir: string): string {
  return envValue(env, 'NUMINTEL_CODE_CACHE_DIR') ?? join(cacheDir(env, homedir), 'code');
}
