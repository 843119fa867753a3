// Checks an LMDB data file before the native library maps it. LMDB trusts its file: garbage, a
// truncated file or a few stray bytes crash the process (measured with lmdb 3.5: SIGSEGV on random
// bytes and on a short file, SIGBUS on a truncated one, an assertion abort on a damaged branch
// page) instead of returning an error. So both meta pages are checked, then every page of both
// B-trees that LMDB would follow (once per change of the file: see `-checked`). What is left is
// damage inside keys and values, which at worst decodes to an error the store turns into its
// warning, or to a wrong answer.
//
// Layout (LMDB data format 2, 64-bit, as built by lmdb-js): each page starts with a 24-byte header
// (pgno, txnid, pad, flags at 18, lower, upper); page 0 and page 1 are meta pages whose MDB_meta
// follows the header: magic, version, address, mapsize, two MDB_db of 48 bytes (the first one's
// md_pad is the page size), last page, txnid.
import { closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import { openRegularFile, readRegularFile } from '../fs/regular-file.js';
import { writeFileAtomically } from '../fs/write-file-atomically.js';

export const HEADER = 24;
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const P_META = 0x08;
export const NO_PAGE = 0xffffffffffffffffn;
const META_BYTES = HEADER + 144;

export interface Meta {
  readonly pageSize: number;
  readonly lastPage: bigint;
  readonly txnid: bigint;
  readonly roots: readonly bigint[];
}

/**
 * The state of the file last walked and found whole (or last left by a writer of this program):
 * while the file still has that transaction, size and modification time, the walk is skipped,
 * so a large cache is walked once after it changed, not on every run.
 */
export const checkedFilePath = (path: string) => `${path}-checked`;

function fileState(info: Stats, meta: Meta): string {
  return JSON.stringify({ txnid: String(meta.txnid), size: info.size, mtimeMs: info.mtimeMs });
}

/** The remembered state is one line of JSON: anything larger is not one. */
const STATE_BYTES = 1024;

function remember(path: string, state: string): void {
  try {
    writeFileAtomically(checkedFilePath(path), state);
  } catch {
    // Only an optimisation: without it the next open walks the file again.
  }
}

function remembered(path: string): string | undefined {
  try {
    return readRegularFile(checkedFilePath(path), STATE_BYTES).bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * After this program's own commits, or its own open to write: the file as it is now needs no walk
 * on the next open. Written only when that state is not the one remembered already.
 */
export function markLmdbFileChecked(path: string): void {
  let opened: { fd: number; info: Stats };
  try {
    opened = openRegularFile(path);
  } catch {
    return;
  }
  const { fd, info } = opened;
  try {
    const meta = newestMeta(fd, info);
    if (typeof meta === 'string') return;
    const state = fileState(info, meta);
    if (remembered(path) !== state) remember(path, state);
  } finally {
    closeSync(fd);
  }
}

/** What is wrong with the file, or the bytes of its pages in use (0: none yet, LMDB makes a new one). */
export type LmdbFileCheck = { readonly problem: string } | { readonly problem?: undefined; readonly usedBytes: number };

/**
 * Checks the file before LMDB opens it. `record`: remember a whole file, so the next open of the
 * unchanged file skips the walk. Throws when it cannot be read, or is not a regular file
 * (regular-file.ts): that is no damage, and clearing the cache is no remedy for it.
 */
export function checkLmdbFile(path: string, record = true): LmdbFileCheck {
  let opened: { fd: number; info: Stats };
  try {
    opened = openRegularFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { usedBytes: 0 };
    throw err;
  }
  const { fd, info } = opened;
  try {
    if (info.size === 0) return { usedBytes: 0 };
    const meta = newestMeta(fd, info);
    if (typeof meta === 'string') return { problem: meta };
    const pages = meta.lastPage + 1n;
    const whole = { usedBytes: Number(pages * BigInt(meta.pageSize)) };
    const state = fileState(info, meta);
    if (remembered(path) === state) return whole;
    const problem = checkTrees(fd, meta, Number(pages));
    if (problem) return { problem };
    if (record) remember(path, state);
    return whole;
  } finally {
    closeSync(fd);
  }
}

/** The meta page LMDB would use, after checking both, or what is wrong with them. */
export function newestMeta(fd: number, info: Stats): Meta | string {
  // Another process may have grown the file (a new cache's first pages, a commit and the meta page
  // that counts its pages) since `info` was taken: a file is short only if it still is.
  const shorterThan = (bytes: bigint) => BigInt(info.size) < bytes && BigInt(fstatSync(fd).size) < bytes;
  const first = readMeta(fd, 0);
  if (typeof first === 'string') return first;
  if (shorterThan(2n * BigInt(first.pageSize))) return `it is too short (${info.size} bytes) for an LMDB file`;
  const second = readMeta(fd, first.pageSize);
  if (typeof second === 'string') return second;
  if (second.pageSize !== first.pageSize) return 'its two meta pages disagree on the page size';
  // LMDB uses the meta page of the later transaction.
  const meta = second.txnid > first.txnid ? second : first;
  const pages = meta.lastPage + 1n;
  if (shorterThan(pages * BigInt(meta.pageSize))) {
    return `it is truncated (${info.size} bytes; its meta page counts ${pages} pages of ${meta.pageSize})`;
  }
  if (meta.roots.some((root) => root !== NO_PAGE && root >= pages)) return 'its meta page points past its end';
  return meta;
}

export const P_BRANCH = 0x01;
export const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
export const P_LEAF2 = 0x20;
const F_BIGDATA = 0x01;
export const NODE = 8;

/**
 * Walks both B-trees (free pages and answers) from their roots, checking every page LMDB would
 * follow before it follows it: the page's own number, its kind, its slot array and nodes inside
 * the page, child and overflow pages inside the file, no page reached twice. LMDB asserts or reads
 * wild memory on each of these when a page is damaged. One read per tree page: a few tens of
 * milliseconds for a million answers.
 */
function checkTrees(fd: number, meta: Meta, pages: number): string | undefined {
  const size = meta.pageSize;
  const page = Buffer.alloc(size);
  const seen = new Set<number>();
  const read = (pgno: number): boolean => readSync(fd, page, 0, size, pgno * size) === size;
  for (const root of meta.roots) {
    if (root === NO_PAGE) continue;
    const stack = [Number(root)];
    while (stack.length > 0) {
      const pgno = stack.pop() as number;
      if (pgno < 2 || pgno >= pages) return `a page points to page ${pgno}, outside the file`;
      if (seen.has(pgno)) return `page ${pgno} is reached twice`;
      seen.add(pgno);
      if (!read(pgno)) return `page ${pgno} cannot be read whole`;
      const problem = checkPage(page, pgno, size, pages, stack, (over) => checkOverflow(fd, over, size, pages));
      if (problem) return `page ${pgno}: ${problem}`;
    }
  }
  return undefined;
}

/** One branch or leaf page; children go on `stack`. */
function checkPage(
  page: Buffer,
  pgno: number,
  size: number,
  pages: number,
  stack: number[],
  overflow: (pgno: number) => string | undefined,
): string | undefined {
  if (Number(page.readBigUInt64LE(0)) !== pgno) return 'it carries another page number';
  const flags = page.readUInt16LE(18);
  const branch = (flags & P_BRANCH) !== 0;
  const leaf = (flags & P_LEAF) !== 0;
  if (branch === leaf || (flags & (P_OVERFLOW | P_META | P_LEAF2)) !== 0) return `its kind (flags 0x${flags.toString(16)}) is not a branch or leaf`;
  // Slot offsets and the free gap are counted from the end of the header.
  const lower = page.readUInt16LE(20);
  const upper = page.readUInt16LE(22);
  const keys = lower >> 1;
  if (lower % 2 !== 0 || lower > upper || HEADER + upper > size) return 'its slot array overlaps its nodes';
  if (branch && keys < 1) return 'a branch page without keys';
  for (let i = 0; i < keys; i++) {
    const at = HEADER + page.readUInt16LE(HEADER + 2 * i);
    if (at < HEADER + upper || at + NODE > size) return `node ${i} lies outside the page`;
    const lo = page.readUInt16LE(at);
    const hi = page.readUInt16LE(at + 2);
    const nodeFlags = page.readUInt16LE(at + 4);
    const keySize = page.readUInt16LE(at + 6);
    if (at + NODE + keySize > size) return `the key of node ${i} runs past the page`;
    if (branch) {
      // A branch node's child page number is 48 bits: lo, hi and the flags field.
      stack.push(lo + hi * 0x10000 + nodeFlags * 0x100000000);
      continue;
    }
    const dataAt = at + NODE + keySize;
    if ((nodeFlags & F_BIGDATA) !== 0) {
      if (dataAt + 8 > size) return `the overflow pointer of node ${i} runs past the page`;
      const over = Number(page.readBigUInt64LE(dataAt));
      if (over < 2 || over >= pages) return `node ${i} points to overflow page ${over}, outside the file`;
      const problem = overflow(over);
      if (problem) return problem;
    } else if (dataAt + lo + hi * 0x10000 > size) {
      return `the value of node ${i} runs past the page`;
    }
  }
  return undefined;
}

/** An overflow page holds one large value in `mp_pages` consecutive pages. */
function checkOverflow(fd: number, pgno: number, size: number, pages: number): string | undefined {
  const head = Buffer.alloc(HEADER);
  if (readSync(fd, head, 0, HEADER, pgno * size) < HEADER) return `overflow page ${pgno} cannot be read`;
  if (Number(head.readBigUInt64LE(0)) !== pgno || (head.readUInt16LE(18) & P_OVERFLOW) === 0) return `overflow page ${pgno} is not one`;
  const count = head.readUInt32LE(20);
  if (count < 1 || pgno + count > pages) return `overflow page ${pgno} runs past the file`;
  return undefined;
}

function readMeta(fd: number, at: number): Meta | string {
  const buf = Buffer.alloc(META_BYTES);
  if (readSync(fd, buf, 0, META_BYTES, at) < META_BYTES) return 'it is too short for an LMDB file';
  if ((buf.readUInt16LE(18) & P_META) === 0 || buf.readUInt32LE(HEADER) !== MAGIC) return 'it is not an LMDB file (no meta page)';
  const version = buf.readUInt32LE(HEADER + 4);
  if (version !== DATA_VERSION) return `it is an LMDB file of data version ${version}, not ${DATA_VERSION}`;
  const pageSize = buf.readUInt32LE(HEADER + 24);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `its page size ${pageSize} is not valid`;
  const dbs = HEADER + 24;
  return {
    pageSize,
    roots: [buf.readBigUInt64LE(dbs + 40), buf.readBigUInt64LE(dbs + 48 + 40)],
    lastPage: buf.readBigUInt64LE(dbs + 96),
    txnid: buf.readBigUInt64LE(dbs + 104),
  };
}
