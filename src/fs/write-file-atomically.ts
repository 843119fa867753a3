// A file replaced whole or not at all: written under a temporary name beside it (created
// exclusively, 0600 unless told otherwise) and renamed over it, so a reader, another process or a
// crash never sees half of it.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { tempSuffix } from '../core/temp-name.js';
import { makeDirs } from './make-dirs.js';

export interface AtomicWriteOptions {
  /** The file's mode, set whatever the umask. Default 0600. */
  readonly mode?: number;
  /** Flushes the file and the rename to the disk before returning (a file the user wrote). */
  readonly durable?: boolean;
  /** Makes the directory (0700) when it is missing. */
  readonly makeDir?: boolean;
}

/** Throws what the file system refused; the temporary file is then gone. */
export function writeFileAtomically(path: string, data: string | Uint8Array, o: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  if (o.makeDir) makeDirs(dir);
  const temp = join(dir, `.${basename(path)}.${tempSuffix()}.tmp`);
  const fd = openSync(temp, 'wx', o.mode ?? 0o600);
  try {
    try {
      // open's mode is filtered by the umask; the mode given is what is promised.
      fchmodSync(fd, o.mode ?? 0o600);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      if (o.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  if (o.durable) syncDir(dir);
}

/** Makes the rename itself durable; not every platform can open a directory, which is fine. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort only.
  }
}
