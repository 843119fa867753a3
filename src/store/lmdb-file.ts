// Checks an LMDB data file's two meta pages before the native library maps it. LMDB trusts its
// file: garbage, a truncated file or a few stray bytes crash the process (measured with lmdb 3.5:
// SIGSEGV on random bytes and on a short file, SIGBUS on a truncated one) instead of returning an
// error. A file that passes here opens normally, and damage deeper in the tree is mostly reported
// by LMDB as MDB_CORRUPTED / MDB_PAGE_NOTFOUND, which the store turns into a warning.
//
// Layout (LMDB data format 2, 64-bit, as built by lmdb-js): each page starts with a 24-byte header
// (pgno, txnid, pad, flags at 18, lower, upper); page 0 and page 1 are meta pages whose MDB_meta
// follows the header: magic, version, address, mapsize, two MDB_db of 48 bytes (the first one's
// md_pad is the page size), last page, txnid.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const HEADER = 24;
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const P_META = 0x08;
const NO_PAGE = 0xffffffffffffffffn;
const META_BYTES = HEADER + 144;

interface Meta {
  readonly pageSize: number;
  readonly lastPage: bigint;
  readonly txnid: bigint;
  readonly roots: readonly bigint[];
}

/** undefined when the file is fine (or empty: LMDB makes a new one), else what is wrong with it. */
export function checkLmdbFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : `cannot read it (${code ?? String(err)})`;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return 'it is not a regular file';
    if (info.size === 0) return undefined;
    const first = readMeta(fd, 0);
    if (typeof first === 'string') return first;
    if (info.size < 2 * first.pageSize) return `it is too short (${info.size} bytes) for an LMDB file`;
    const second = readMeta(fd, first.pageSize);
    if (typeof second === 'string') return second;
    if (second.pageSize !== first.pageSize) return 'its two meta pages disagree on the page size';
    // LMDB uses the meta page of the later transaction.
    const meta = second.txnid > first.txnid ? second : first;
    const pages = meta.lastPage + 1n;
    if (pages * BigInt(meta.pageSize) > BigInt(info.size)) {
      return `it is truncated (${info.size} bytes; its meta page counts ${pages} pages of ${meta.pageSize})`;
    }
    if (meta.roots.some((root) => root !== NO_PAGE && root >= pages)) return 'its meta page points past its end';
    return undefined;
  } finally {
    closeSync(fd);
  }
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
