// The options the cache file is opened with (lmdb-js).
import type { RootDatabase } from 'lmdb';
import { loadLmdb } from './lmdb-module.js';

/** The map when it is written in place: four times the pages in use, to a power of two, and at least this. */
const MIN_WRITE_MAP = 2 ** 30;

/**
 * LMDB's MDB_NORDAHEAD: the kernel reads no pages ahead of those a lookup touches. Answers are
 * keyed at random, so pages read ahead are seldom used, and in a writable map (as large as the map,
 * sparse) they are zero pages past the data, each resident once read. lmdb-js reads the flag but
 * its types do not list it.
 */
const NO_READ_AHEAD: object = { noReadAhead: true };

export interface LmdbOpenOptions {
  readonly path: string;
  readonly readOnly: boolean;
  /** Pages written in place in a writable map. */
  readonly writeMap: boolean;
  /** The bytes of the file's pages in use (lmdb-file.ts), to size a writable map. */
  readonly usedBytes: number;
}

export function openLmdb({ path, readOnly, writeMap, usedBytes }: LmdbOpenOptions): RootDatabase {
  return loadLmdb().open({
    path,
    compression: false,
    sharedStructuresKey: Symbol.for('structures'),
    // Commits are not synced one by one: a store's close syncs them all. Answers arrive in random
    // key order, so each commit of 1,024 rewrites about as many pages, and a sync per commit sends
    // them all, where the kernel left to itself writes a page once however often it was rewritten.
    // A killed process loses nothing it committed (the kernel holds it); a power cut or OS crash
    // during a run may lose its answers or damage the file, which the next open finds (the file
    // is walked unless its last writer closed it: lmdb-file.ts) and reports once.
    noSync: true,
    ...NO_READ_AHEAD,
    ...(writeMap
      ? {
          // Pages changed in place in a writable map, not copied and then written with pwrite: a
          // put costs a cold run a fraction of the CPU. The file is as large as the map (sparse:
          // pages not in use take no disk), so the map is sized to the cache: LMDB grows a full map
          // by itself, but each larger map comes on top of the earlier ones, whose pages stay resident.
          useWritemap: true,
          mapSize: Math.max(MIN_WRITE_MAP, 2 ** Math.ceil(Math.log2(4 * usedBytes + 1))),
        }
      : // Address space, not memory: a map that never has to grow.
        { mapSize: 2 ** 36 }),
    ...(readOnly ? { readOnly: true } : {}),
  });
}
