// The plain-read LMDB lookup against LMDB itself, on files written by lmdb-js as the store writes
// them: every answer agrees (or is "unsure", never wrong) on trees one to three levels deep,
// number and string keys, values on overflow pages, damaged pages, and commits during the walk.
import { closeSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { writeKey } from 'ordered-binary';
import { LmdbPeek, encodeKey, msgpackUint } from '../../src/store/lmdb-peek.js';
import { tempDir } from '../support/tmp.js';

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** A database opened as the store opens it. */
function makeDb(): { db: RootDatabase; path: string } {
  const path = join(tempDir(), 'answers.mdb');
  const db = open({ path, compression: false, sharedStructuresKey: Symbol.for('structures'), noSync: true, useWritemap: true, mapSize: 2 ** 30 });
  opened.push(db);
  return { db, path };
}

function peeker(path: string): LmdbPeek {
  const p = new LmdbPeek(path);
  opened.push({ close: () => p.close() });
  return p;
}

/** A deterministic stream of numbers (so a failure can be run again). */
function numbers(seed: number) {
  // xorshift32: exact in 32-bit integers.
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** Puts `n` answers keyed as the store keys them (id × 10^11 + number, a tenth `id:digits`), then checks lookups of present and absent keys. */
function agreesWithLmdb(n: number): { depth: number; present: number; absent: number } {
  const { db, path } = makeDb();
  const next = numbers(n);
  const keys: (number | string)[] = [];
  const keyOf = () => (next() % 10 === 0 ? `3:${next()}` : 3e11 + 12_000_000_000 + (next() % 8_000_000_000));
  db.transactionSync(() => {
    db.putSync('prefix/https://api.example.com lrn ', 3);
    for (let i = 0; i < n; i++) {
      const key = keyOf();
      keys.push(key);
      db.putSync(key, [1_700_000_000_000 + i, { lrn: String(key), carrier: 'X', messaging: { enabled: i % 2 === 0 } }]);
    }
  });
  const peek = peeker(path);
  let present = 0;
  let absent = 0;
  for (let i = 0; i < 3000; i++) {
    const key = i % 2 === 0 ? (keys[next() % keys.length] as number | string) : keyOf();
    const want = db.getBinary(key);
    const got = peek.get(key);
    expect(got, `key ${key}`).not.toBe('unsure');
    if (want === undefined) {
      expect(got, `key ${key}`).toBe('absent');
      absent += 1;
    } else {
      expect(Buffer.isBuffer(got) && got.equals(want), `key ${key}`).toBe(true);
      present += 1;
    }
  }
  return { depth: (db.getStats() as { treeDepth: number }).treeDepth, present, absent };
}

describe('LmdbPeek', () => {
  it('agrees with LMDB on every key, present or not, in trees one to three levels deep', () => {
    for (const [n, depth] of [
      [20, 1],
      [3000, 2],
      [200_000, 3],
    ] as const) {
      const seen = agreesWithLmdb(n);
      expect(seen.depth).toBe(depth);
      expect(seen.present).toBeGreaterThan(1000);
      expect(seen.absent).toBeGreaterThan(1000);
    }
  }, 60_000);

  it('reads string keys and the prefix ids stored as msgpack integers of every width', () => {
    const { db, path } = makeDb();
    const ids = { 'prefix/a lrn ': 1, 'prefix/b cnam spam': 127, 'prefix/c trust ': 200, 'prefix/d lrn enhanced': 70_000, 'prefix/e lrn ': 5_000_000 };
    db.transactionSync(() => {
      for (const [k, v] of Object.entries(ids)) db.putSync(k, v);
    });
    const peek = peeker(path);
    for (const [k, v] of Object.entries(ids)) {
      const got = peek.get(k);
      expect(Buffer.isBuffer(got) ? msgpackUint(got) : got).toBe(v);
    }
    expect(peek.get('prefix/f lrn ')).toBe('absent');
    expect(peek.get('prefix/')).toBe('absent');
    expect(msgpackUint(Buffer.from([0xcb, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
    expect(msgpackUint(Buffer.alloc(0))).toBeUndefined();
  });

  it('answers absent for a missing file or an empty database, and sees a file made later', () => {
    const dir = tempDir();
    const peek = peeker(join(dir, 'answers.mdb'));
    expect(peek.get(312015550123)).toBe('absent');
    const db = open({ path: join(dir, 'answers.mdb'), compression: false, noSync: true, useWritemap: true, mapSize: 2 ** 30 });
    opened.push(db);
    expect(peek.get(312015550123)).toBe('absent');
    db.putSync(312015550123, [1, { lrn: 'x' }]);
    expect(Buffer.isBuffer(peek.get(312015550123))).toBe(true);
  });

  it('is unsure, without throwing, of a directory in the file\'s place and of a key too large for LMDB', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'answers.mdb'));
    expect(peeker(join(dir, 'answers.mdb')).get(312015550123)).toBe('unsure');
    const { path } = makeDb();
    expect(peeker(path).get('x'.repeat(5000))).toBe('unsure');
  });

  it('leaves a value on overflow pages to LMDB', () => {
    const { db, path } = makeDb();
    db.transactionSync(() => {
      db.putSync(1, 'x'.repeat(10_000));
      db.putSync(2, 'small');
    });
    const peek = peeker(path);
    expect(peek.get(1)).toBe('unsure');
    expect(Buffer.isBuffer(peek.get(2))).toBe(true);
  });

  it('is unsure, never wrong, when LMDB commits during the walk, and sure again once nothing does', () => {
    const { db, path } = makeDb();
    db.transactionSync(() => {
      for (let i = 0; i < 5000; i++) db.putSync(i, [i, { n: i }]);
    });
    const peek = peeker(path);
    // A commit right after the walk (before the meta page is read again), on the first lookups only.
    let commits = 2;
    const self = peek as unknown as { walk: (...a: unknown[]) => unknown };
    const walk = self.walk.bind(peek);
    self.walk = (...a: unknown[]) => {
      const found = walk(...a);
      if (commits-- > 0) db.putSync(100_000 + commits, [commits, {}]);
      return found;
    };
    expect(peek.get(42)).toBe('unsure');
    expect(peek.get(999_999)).toBe('unsure');
    expect(Buffer.isBuffer(peek.get(42))).toBe(true);
    expect(peek.get(999_999)).toBe('absent');
  });

  it('is unsure of a damaged page rather than reading past it', () => {
    const { db, path } = makeDb();
    db.transactionSync(() => {
      for (let i = 0; i < 3000; i++) db.putSync(i, [i, { n: i }]);
    });
    const head = Buffer.alloc(8192);
    const fd = openSync(path, 'r+');
    try {
      readSync(fd, head, 0, head.length, 0);
      const meta = head.readBigUInt64LE(152) > head.readBigUInt64LE(4096 + 152) ? 0 : 4096;
      const root = Number(head.readBigUInt64LE(meta + 24 + 24 + 48 + 40));
      // The root's first slot now points past the page.
      const slot = Buffer.alloc(2);
      slot.writeUInt16LE(4090);
      writeSync(fd, slot, 0, 2, root * 4096 + 24);
    } finally {
      closeSync(fd);
    }
    const peek = peeker(path);
    expect(peek.get(0)).toBe('unsure');
  });
});

describe('encodeKey', () => {
  /** ordered-binary's bytes for the key (lmdb loaded: null termination on, as in the store). */
  const expected = (key: number | string) => {
    const target = Buffer.alloc(4096);
    return target.subarray(0, writeKey(key, target, 0)).toString('hex');
  };
  const encoded = (key: number | string) => {
    const target = Buffer.alloc(4096, 0xaa);
    return target.subarray(0, encodeKey(key, target)).toString('hex');
  };

  it('writes the bytes ordered-binary writes for every number shape the store uses and more', () => {
    const next = numbers(7);
    const keys: number[] = [0, -0, 1, 2, 15, 16, 17, 255, 256, 2 ** 31, 2 ** 32 + 1, 2 ** 52, 2 ** 53 - 1, 2 ** 53, 2 ** 60, 0.5, 1 / 3, Number.MIN_VALUE, Number.MAX_VALUE];
    for (let i = 0; i < 20_000; i++) {
      // The store's keys: a lookup's prefix id times the stride plus an 11-digit number.
      keys.push((next() % 50) * 1e11 + 1e10 + (next() % 1e6) * 1e4 + (next() % 1e4));
      // Integers of every magnitude, and fractions (bits in the last nibble: the 9-byte form).
      keys.push(next() * 2 ** (next() % 22));
      keys.push(next() / (next() + 1));
    }
    for (const key of keys) expect(encoded(key), String(key)).toBe(expected(key));
  });

  it('writes strings as ordered-binary does, short ASCII by itself and the rest through ordered-binary', () => {
    const keys = ['prefix/lrn', 'prefix/cnam', 'prefix/trust', '1:+4420', 'x', '\x1c', 'a\x05b', 'a'.repeat(63), 'a'.repeat(64), 'a'.repeat(500)];
    // What the fast path leaves to ordered-binary: a control character first or within, non-ASCII, empty.
    keys.push('\x1bx', '\x00', 'a\x04b', 'caf\u00e9', '\u{1F4DE}', '', '\x7f\x7f');
    for (const key of keys) expect(encoded(key), JSON.stringify(key)).toBe(expected(key));
  });

  it('leaves negative, infinite and NaN numbers to ordered-binary', () => {
    for (const key of [-1, -0.5, -(2 ** 60), Number.POSITIVE_INFINITY, Number.NaN, Number.NEGATIVE_INFINITY]) expect(encoded(key), String(key)).toBe(expected(key));
  });
});
