// The cache's files on disk: the directory (0700 when made here), the data file and LMDB's lock
// file beside it (0600), each a regular file before LMDB opens it. LMDB maps both: a lock file that
// is a link to /dev/zero, or a directory, crashed the process, and a FIFO hung it at its open.
import { closeSync, constants, fchmodSync, openSync, statSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from '../fs/make-dirs.js';
import { openRegularFile } from '../fs/regular-file.js';

/** The database file in the cache directory. */
export const CACHE_FILE_NAME = 'answers.mdb';

export function cacheFilePath(dir: string): string {
  return join(dir, CACHE_FILE_NAME);
}

/** LMDB's lock file beside the data file. */
export function lockFilePath(path: string): string {
  return `${path}-lock`;
}

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Before LMDB opens the cache: both files are regular files (a writer makes the directory and any
 * file missing, and makes them private); a reader makes nothing. Throws what is wrong.
 */
export function prepareCacheFiles(dir: string, path: string, readOnly: boolean): void {
  if (!readOnly) makeDirs(dir);
  for (const file of [path, lockFilePath(path)]) checkCacheFile(file, !readOnly);
}

function checkCacheFile(file: string, create: boolean): void {
  let fd: number;
  let loose = false;
  try {
    let info;
    ({ fd, info } = openRegularFile(file));
    loose = (info.mode & 0o077) !== 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) return;
    try {
      fd = openSync(file, CREATE_FLAGS, 0o600);
      loose = true;
    } catch (created) {
      // Made by another process in the meantime: checked as any other.
      if ((created as NodeJS.ErrnoException).code !== 'EEXIST') throw created;
      return checkCacheFile(file, false);
    }
  }
  try {
    // A file made under a loose umask, or copied in, is made private too.
    if (create && loose) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

export function diskFreeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

export function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
