// Reads one key of the lookup cache's LMDB file with plain reads, without loading LMDB: what lets a
// run of a few numbers that the cache does not hold (a script starting numintel once per new number)
// leave LMDB unloaded (see light-store.ts). Loading and opening LMDB is most of what the cache adds
// to such a run's start-up (README, Start-up).
//
// The walk is LMDB's own search (lmdb-file.ts has the layout): the newest meta page names the root
// of the answers' B-tree; each branch page is searched for the last key not above the sought one,
// the leaf for the key itself, keys compared as bytes, encoded as lmdb-js encodes them (its
// ordered-binary). LMDB never writes over a page of the snapshot a reader reads; this reader holds
// no slot in the lock file's reader table, so it relies on what LMDB reuses when nobody reads: a
// writer's transaction T takes only pages freed by transaction T - 2 or earlier (lmdb-js's mdb.c,
// mdb_find_oldest), so while the snapshot read (transaction S) is still the newest, the one writer
// that may be at work (S + 1) leaves its pages alone. So the newest meta page is read again after
// the walk, and the answer holds only if it is the same (a meta page being written while it was
// read shows there as a change). Anything else, and anything a well-formed file would not hold (the
// checks of lmdb-file.ts on its meta pages included), is "unsure": LMDB itself must look.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { HEADER, NO_PAGE, NODE, P_BRANCH, P_LEAF, P_LEAF2, newestMeta, type Meta } from './lmdb-file.js';
import { loadOrderedBinary } from './lmdb-module.js';

/** The value's bytes; or nothing under the key; or no sure answer (open LMDB and ask it). */
export type Peeked = Buffer | 'absent' | 'unsure';

/** Deeper than any B-tree of a cache (a million answers are 3 levels deep). */
const MAX_DEPTH = 16;
/** Above LMDB's largest key (lmdb-js: 1,978 bytes). */
const KEY_BYTES = 4096;

export class LmdbPeek {
  private fd: number | undefined;
  private page = Buffer.alloc(0);
  private readonly keyBytes = Buffer.alloc(KEY_BYTES);

  constructor(private readonly path: string) {}

  /** The value stored under `key` (a key as the store writes it: a number or a string). Never throws. */
  get(key: number | string): Peeked {
    try {
      return this.read(key);
    } catch {
      // A key lmdb could not store either, a directory in the file's place, a read refused: LMDB's to say.
      return 'unsure';
    }
  }

  private read(key: number | string): Peeked {
    const fd = this.open();
    if (fd === undefined) return 'absent';
    const sought = this.keyBytes.subarray(0, encodeKey(key, this.keyBytes));
    const meta = newestMeta(fd, fstatSync(fd));
    if (typeof meta === 'string') return 'unsure';
    const found = this.walk(fd, meta, sought);
    const after = newestMeta(fd, fstatSync(fd));
    return typeof after !== 'string' && after.txnid === meta.txnid && after.roots[1] === meta.roots[1] ? found : 'unsure';
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The file, once it exists (a run may begin before any other made it). */
  private open(): number | undefined {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.path, 'r');
      } catch {
        return undefined;
      }
    }
    return this.fd;
  }

  private walk(fd: number, meta: Meta, sought: Buffer): Peeked {
    const root = meta.roots[1] as bigint;
    if (root === NO_PAGE) return 'absent';
    const size = meta.pageSize;
    const pages = Number(meta.lastPage) + 1;
    if (this.page.length !== size) this.page = Buffer.alloc(size);
    const page = this.page;
    let pgno = Number(root);
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      if (pgno < 2 || pgno >= pages) return 'unsure';
      if (readSync(fd, page, 0, size, pgno * size) !== size) return 'unsure';
      if (page.readUInt32LE(0) + page.readUInt32LE(4) * 2 ** 32 !== pgno) return 'unsure';
      const flags = page.readUInt16LE(18);
      const branch = (flags & P_BRANCH) !== 0;
      if (branch === ((flags & P_LEAF) !== 0) || (flags & P_LEAF2) !== 0) return 'unsure';
      const lower = page.readUInt16LE(20);
      const upper = page.readUInt16LE(22);
      const count = lower >> 1;
      if (lower % 2 !== 0 || lower > upper || HEADER + upper > size) return 'unsure';
      /** Where node i starts, or -1 outside the page's nodes. */
      const node = (i: number): number => {
        const at = HEADER + page.readUInt16LE(HEADER + 2 * i);
        return at < HEADER + upper || at + NODE > size || at + NODE + page.readUInt16LE(at + 6) > size ? -1 : at;
      };
      /** The node's key against the sought one: negative when it sorts before (LMDB's memcmp, the shorter first). */
      const order = (at: number): number => page.compare(sought, 0, sought.length, at + NODE, at + NODE + page.readUInt16LE(at + 6));
      if (branch) {
        // The last node whose key is not above the sought one; node 0 stands for everything below node 1.
        let lo = 1;
        let hi = count - 1;
        let child = 0;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          const at = node(mid);
          if (at < 0) return 'unsure';
          if (order(at) <= 0) {
            child = mid;
            lo = mid + 1;
          } else hi = mid - 1;
        }
        const at = node(child);
        if (at < 0) return 'unsure';
        // A branch node's child page number is 48 bits: its data size (lo, hi) and flags fields.
        pgno = page.readUInt16LE(at) + page.readUInt16LE(at + 2) * 0x10000 + page.readUInt16LE(at + 4) * 0x100000000;
        continue;
      }
      let lo = 0;
      let hi = count - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const at = node(mid);
        if (at < 0) return 'unsure';
        const c = order(at);
        if (c < 0) lo = mid + 1;
        else if (c > 0) hi = mid - 1;
        else {
          // A value on overflow pages (F_BIGDATA) or any other kind of node (the cache makes none) is left to LMDB.
          if (page.readUInt16LE(at + 4) !== 0) return 'unsure';
          const from = at + NODE + page.readUInt16LE(at + 6);
          const to = from + page.readUInt16LE(at) + page.readUInt16LE(at + 2) * 0x10000;
          return to > size ? 'unsure' : Buffer.from(page.subarray(from, to));
        }
      }
      return 'absent';
    }
    return 'unsure';
  }
}

/** A non-negative integer as msgpack (lmdb-js's value encoding) writes it, or undefined for anything else. */
export function msgpackUint(bytes: Buffer): number | undefined {
  const tag = bytes[0];
  if (tag === undefined) return undefined;
  if (tag <= 0x7f) return bytes.length === 1 ? tag : undefined;
  if (tag === 0xcc && bytes.length === 2) return bytes.readUInt8(1);
  if (tag === 0xcd && bytes.length === 3) return bytes.readUInt16BE(1);
  if (tag === 0xce && bytes.length === 5) return bytes.readUInt32BE(1);
  return undefined;
}

/**
 * `key` as lmdb-js stores it (ordered-binary's writeKey; the length it returns). The two shapes the
 * store writes, short ASCII strings and non-negative numbers, are encoded here, as ordered-binary
 * does; anything else by ordered-binary itself. Loading ordered-binary compiles a function it
 * writes at run time, which no code cache keeps: most of what looking up one key cost a run
 * (test/store/lmdb-peek.test.ts holds this to ordered-binary's bytes).
 */
export function encodeKey(key: number | string, target: Buffer): number {
  if (typeof key === 'number' && key >= 0 && key <= Number.MAX_VALUE) {
    // The IEEE 754 bits, big-endian, shifted right four bits under a type nibble of 1; trailing
    // zero bytes dropped down to 4, 6 or 8 bytes (9 when the last four bits are set).
    target.writeDoubleBE(key, 0);
    const high = target.readUInt32BE(0);
    const low = target.readUInt32BE(4);
    target.writeUInt32BE(((high >>> 4) | 0x10000000) >>> 0, 0);
    target.writeUInt32BE(((low >>> 4) | (high << 28)) >>> 0, 4);
    target[8] = (low & 0xf) << 4;
    return low & 0xf ? 9 : low & 0xfffff ? 8 : low || high & 0xf ? 6 : 4;
  }
  if (typeof key === 'string' && plainAscii(key)) return target.write(key, 0, 'latin1');
  return loadOrderedBinary().writeKey(key, target, 0);
}

/** Short ASCII that ordered-binary writes byte for byte: nothing it escapes (below 28 first, 4 or below anywhere). */
function plainAscii(key: string): boolean {
  if (key.length === 0 || key.length >= 0x40 || key.charCodeAt(0) < 28) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c <= 4 || c >= 0x80) return false;
  }
  return true;
}
