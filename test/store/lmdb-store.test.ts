// The persistent cache against a real LMDB file in a temp directory: hits and misses, what is in
// the key, freshness on a fake clock, refresh, permissions, pruning, clearing and stats.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { steppedClock } from '../support/clock.js';
import { newestMeta } from '../../src/store/lmdb-file.js';
import { LmdbAnswerStore, type LmdbStoreOptions } from '../../src/store/lmdb-store.js';
import { openAnswerStore } from '../../src/store/open.js';
import { NO_STORE } from '../../src/store/answer-store.js';
import { cacheFailure } from '../../src/store/cache-failure.js';
import { parseMaxAge } from '../../src/settings/max-age.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const DAY = 24 * HOUR;

/** The offset of the meta page of the later transaction (its txnid at 152), in the file's first two pages. */
const newerMeta = (head: Buffer) => (head.readBigUInt64LE(152) > head.readBigUInt64LE(4096 + 152) ? 0 : 4096);

/**
 * The pages of an LMDB file in use: a file written through its map (Linux) is as large as the map,
 * the rest a hole. The newer meta page counts them (its last page at 144).
 */
function pagesInUse(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(8192);
    readSync(fd, head, 0, head.length, 0);
    const meta = newerMeta(head);
    const bytes = Buffer.alloc((Number(head.readBigUInt64LE(meta + 144)) + 1) * 4096);
    readSync(fd, bytes, 0, bytes.length, 0);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Writes `bytes` over the start of the file, which keeps its length. */
function overwrite(file: string, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, 0);
  } finally {
    closeSync(fd);
  }
}

function fakeClock(start = T0) {
  const clock = steppedClock(start);
  return { clock, advance: clock.advance };
}

async function openStore(dir: string, extra: Partial<LmdbStoreOptions> = {}) {
  const warnings: string[] = [];
  const store = await LmdbAnswerStore.open({
    dir,
    service: 'https://api.example.com',
    clock: extra.clock ?? fakeClock().clock,
    warn: (m) => warnings.push(m),
    ...extra,
  });
  return { store, warnings };
}

/** A cache in `dir` holding one LRN answer, closed again. */
async function seed(dir: string, number: string, fetchedAt = T0): Promise<void> {
  const { store } = await openStore(dir);
  store.slot('lrn', {}).put(number, LRN, fetchedAt);
  await store.close();
}

const LRN = { lrn: '12015550000', lrn_activated_at: '2021-09-01T00:00:00+00:00' };
const ENHANCED = { ...LRN, enhanced_lrn_data: { carrier: 'Verizon', carrier_type: 'wireless', lata: null, zip_code: '07030' } };
const TRUST = { phone_number: '12015550123', is_spam: false, is_robocall: true, reputation_score: 87, spam_type: null, trust_level: 'high' };

describe('the persistent cache', () => {
  it('answers what was put, exactly as received, across a close and reopen', async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const first = await openStore(dir, { clock: t.clock });
    expect(first.store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    first.store.slot('lrn', { enhanced: true }).put('12015550123', ENHANCED, t.clock.now());
    first.store.slot('trust', {}).put('12015550123', TRUST, t.clock.now() - 5);
    await first.store.close();

    const again = await openStore(dir, { clock: t.clock });
    expect(again.store.slot('lrn', { enhanced: true }).get('12015550123')).toEqual({ result: ENHANCED, fetchedAt: t.clock.now() });
    const trust = again.store.slot('trust', {}).get('12015550123');
    expect(trust).toEqual({ result: TRUST, fetchedAt: t.clock.now() - 5 });
    // Key order as the service sent it.
    expect(Object.keys(trust?.result ?? {})).toEqual(Object.keys(TRUST));
    expect(again.warnings).toEqual([]);
    await again.store.close();
  });

  // A few answers left at close are committed on the closing thread, more through lmdb's write
  // thread (writeBatchNow): both sides of the line, and a batch handed over before close, are kept.
  it.each([1, 64, 65, 1500])('%i answers put and closed at once are all there on reopen', async (count) => {
    const dir = await tempDir();
    const t = fakeClock();
    const numbers = Array.from({ length: count }, (_, i) => `1201555${String(i).padStart(4, '0')}`);
    const first = await openStore(dir, { clock: t.clock });
    const slot = first.store.slot('lrn', {});
    for (const n of numbers) slot.put(n, { ...LRN, lrn: n }, t.clock.now());
    await first.store.close();
    const again = await openStore(dir, { clock: t.clock });
    const reread = again.store.slot('lrn', {});
    expect(numbers.filter((n) => reread.get(n)?.result.lrn !== n)).toEqual([]);
    expect((await again.store.stats()).entries).toBe(count);
    await again.store.close();
  });

  it("lmdb's environment still offers the synchronous sync close() uses for what the process committed", async () => {
    const { open } = await import('lmdb');
    const db = open({ path: join(await tempDir(), 'probe.mdb') });
    const env = (db as unknown as { env?: { sync?: unknown } }).env;
    expect(typeof env?.sync).toBe('function');
    await db.close();
  });

  // Linux writes the map in place (the default there); elsewhere pages are copied and written with
  // pwrite. A cache made one way is read and written the other.
  it.each([
    [true, false],
    [false, true],
  ])('a cache written with writeMap %s is read and written with writeMap %s', async (made, then) => {
    const dir = await tempDir();
    const numbers = Array.from({ length: 1500 }, (_, i) => `1201555${String(i).padStart(4, '0')}`);
    const first = await openStore(dir, { writeMap: made });
    for (const n of numbers) first.store.slot('lrn', {}).put(n, { ...LRN, lrn: n }, T0);
    await first.store.close();
    const second = await openStore(dir, { writeMap: then });
    expect(numbers.filter((n) => second.store.slot('lrn', {}).get(n)?.result.lrn !== n)).toEqual([]);
    second.store.slot('trust', {}).put('12015550123', TRUST, T0);
    await second.store.close();
    const third = await openStore(dir, { writeMap: made });
    expect(third.store.slot('trust', {}).get('12015550123')?.result).toEqual(TRUST);
    expect((await third.store.stats()).entries).toBe(1501);
    await third.store.close();
    expect([...first.warnings, ...second.warnings, ...third.warnings]).toEqual([]);
  });

  it('written in place, the file is as large as its map, its unused part a hole; stats counts the pages in use', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir, { writeMap: true });
    for (let i = 0; i < 3000; i++) store.slot('lrn', {}).put(`1201555${String(i).padStart(4, '0')}`, LRN, T0);
    await store.close();
    const reader = await openStore(dir, { readOnly: true });
    const { bytes, entries } = await reader.store.stats();
    await reader.store.close();
    const file = join(dir, 'answers.mdb');
    expect(entries).toBe(3000);
    expect(statSync(file).size).toBeGreaterThanOrEqual(2 ** 30);
    expect(bytes).toBe(pagesInUse(file).length);
    expect(bytes).toBeLessThan(2 ** 20);
    expect(statSync(file).blocks * 512).toBeLessThan(4 * 2 ** 20);
  });

  it('written in place, a disk with less than 64 MB free opens no cache (one warning): a full disk would end the process', async () => {
    const dir = await tempDir();
    const { store, warnings } = await openStore(dir, { writeMap: true, freeBytes: () => 10 * 2 ** 20 });
    expect(store.usable).toBe(false);
    store.slot('lrn', {}).put('12015550123', LRN, T0);
    await store.close();
    expect(warnings).toEqual(['the lookup cache cannot be used (ENOSPC: less than 64 MB is free on its disk); going on without it (the disk is full)']);
    // Pages copied and written with pwrite get ENOSPC from the disk itself: no margin is kept.
    const copied = await openStore(dir, { writeMap: false, freeBytes: () => 0 });
    expect(copied.store.usable).toBe(true);
    await copied.store.close();
  });

  it('written in place, a disk that fills during a run: the next batch is not written, one warning, what was committed stays', async () => {
    const dir = await tempDir();
    let free = 2 ** 40;
    const { store, warnings } = await openStore(dir, { writeMap: true, freeBytes: () => free });
    const slot = store.slot('lrn', {});
    const numbers = Array.from({ length: 2048 }, (_, i) => `1201555${String(i).padStart(4, '0')}`);
    for (const n of numbers.slice(0, 1024)) slot.put(n, { ...LRN, lrn: n }, T0);
    await store.stats(); // the first batch committed
    free = 2 ** 20;
    for (const n of numbers.slice(1024)) slot.put(n, { ...LRN, lrn: n }, T0);
    expect(warnings).toEqual(['the lookup cache cannot be used (ENOSPC: less than 64 MB is free on its disk); going on without it (the disk is full)']);
    expect(store.usable).toBe(false);
    expect(slot.get(numbers[0]!)).toBeUndefined();
    await store.close();
    const again = await openStore(dir);
    const kept = numbers.filter((n) => again.store.slot('lrn', {}).get(n));
    await again.store.close();
    expect(kept).toEqual(numbers.slice(0, 1024));
  });

  it('keys by service origin, lookup, the options that change the answer, and number', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    store.slot('lrn', { enhanced: true, spam: true }).put('12015550123', ENHANCED, T0);
    // spam is not an LRN option: it does not split the key.
    expect(store.slot('lrn', { enhanced: true }).get('12015550123')?.result).toEqual(ENHANCED);
    expect(store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    expect(store.slot('lrn', { enhanced: true, messaging: true }).get('12015550123')).toBeUndefined();
    expect(store.slot('cnam', { enhanced: true }).get('12015550123')).toBeUndefined();
    expect(store.slot('lrn', { enhanced: true }).get('12015550124')).toBeUndefined();
    await store.close();

    const other = await openStore(dir, { service: 'https://other.example.com' });
    expect(other.store.slot('lrn', { enhanced: true }).get('12015550123')).toBeUndefined();
    await other.store.close();
  });

  it('keeps numbers that are not 11 digits (--no-validate) under their own keys', async () => {
    const { store } = await openStore(await tempDir());
    store.slot('lrn', {}).put('4420712345678', LRN, T0);
    store.slot('lrn', {}).put('555', { ...LRN, lrn: 'x' }, T0);
    expect(store.slot('lrn', {}).get('4420712345678')?.result).toEqual(LRN);
    expect(store.slot('lrn', {}).get('555')?.result.lrn).toBe('x');
    expect((await store.stats()).kinds.lrn.entries).toBe(2);
    await store.close();
  });

  it('answers only fresh entries: defaults LRN 24 h, CNAM 7 days, trust 24 h, or the max age given', async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const { store } = await openStore(dir, { clock: t.clock });
    const at = t.clock.now();
    store.slot('lrn', {}).put('12015550123', LRN, at);
    store.slot('cnam', {}).put('12015550123', { number: '12015550123', cnam: 'X' }, at);
    store.slot('trust', {}).put('12015550123', TRUST, at);
    const lrn = store.slot('lrn', {});
    expect(lrn.has('12015550123')).toBe(true); // not committed yet
    await store.stats(); // commits
    t.advance(DAY);
    expect(store.slot('lrn', {}).get('12015550123')).toBeDefined();
    expect(lrn.has('12015550123')).toBe(true);
    expect(lrn.has('12015550124')).toBe(false);
    t.advance(1);
    expect(store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    expect(lrn.has('12015550123')).toBe(false);
    expect(store.slot('trust', {}).get('12015550123')).toBeUndefined();
    expect(store.slot('cnam', {}).get('12015550123')).toBeDefined();
    t.advance(6 * DAY);
    expect(store.slot('cnam', {}).get('12015550123')).toBeUndefined();
    await store.close();

    const longer = await openStore(dir, { clock: t.clock, maxAge: parseMaxAge('lrn=30d', 'test') });
    expect(longer.store.slot('lrn', {}).get('12015550123')?.result).toEqual(LRN);
    expect(longer.store.slot('trust', {}).get('12015550123')).toBeUndefined();
    await longer.store.close();
  });

  it('--refresh reads nothing and stores what comes back', async () => {
    const dir = await tempDir();
    await seed(dir, '12015550123');
    const refreshing = await openStore(dir, { refresh: true });
    expect(refreshing.store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    refreshing.store.slot('lrn', {}).put('12015550123', { ...LRN, lrn: '19735550000' }, T0 + 2);
    await refreshing.store.close();
    const b = await openStore(dir);
    expect(b.store.slot('lrn', {}).get('12015550123')).toEqual({ result: { ...LRN, lrn: '19735550000' }, fetchedAt: T0 + 2 });
    await b.store.close();
  });

  it('creates the directory 0700 and its files 0600', async () => {
    const dir = join(await tempDir(), 'deep', 'numintel');
    const { store } = await openStore(dir);
    store.slot('lrn', {}).put('12015550123', LRN, 1);
    await store.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'answers.mdb')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'answers.mdb-lock')).mode & 0o777).toBe(0o600);
  });

  it('read-only: a missing cache is not created, an existing one is read', async () => {
    const dir = join(await tempDir(), 'cache');
    const ro = await openStore(dir, { readOnly: true });
    expect(ro.store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    ro.store.slot('lrn', {}).put('12015550123', LRN, 1);
    await ro.store.close();
    expect(() => statSync(dir)).toThrow();
    await seed(dir, '12015550123', Date.UTC(2026, 0, 1));
    const ro2 = await openStore(dir, { readOnly: true });
    expect(ro2.store.slot('lrn', {}).get('12015550123')?.result).toEqual(LRN);
    expect(ro2.warnings).toEqual([]);
    await ro2.store.close();
  });

  it('a lookup the cache has no answers of is looked for once a second, not on every row (a dry run)', async () => {
    const dir = await tempDir();
    await seed(dir, '12015550123');
    const t = fakeClock();
    const ro = await openStore(dir, { readOnly: true, clock: t.clock });
    const db = (ro.store as unknown as { open: { db: { get(key: unknown): unknown } } }).open.db;
    const get = db.get.bind(db);
    let reads = 0;
    db.get = (key) => {
      reads += 1;
      return get(key);
    };
    const cnam = ro.store.slot('cnam', {});
    for (let i = 0; i < 100; i++) expect(cnam.has(String(12015550000 + i))).toBe(false);
    expect(reads).toBe(1);
    // Another process may begin to put answers of it: a second later it is looked for again.
    t.advance(1000);
    for (let i = 0; i < 100; i++) expect(cnam.has(String(12015550000 + i))).toBe(false);
    expect(reads).toBe(2);
    expect(ro.store.slot('lrn', {}).has('12015550123')).toBe(true);
    await ro.store.close();
  });

  // The answers are read in one read transaction held across turns (snapshot()), let go when a
  // commit of this process lands and by a timer a second after it began.
  it("reads this process's own answers as soon as their batch is committed", async () => {
    const dir = await tempDir();
    await seed(dir, '12015550000');

    const t = fakeClock();
    const { store } = await openStore(dir, { clock: t.clock });
    const slot = store.slot('lrn', {});
    // A miss: the read transaction is begun before any of the answers below is committed.
    expect(slot.has('12015559999')).toBe(false);
    const numbers = Array.from({ length: 1024 }, (_, i) => String(12016000000 + i));
    for (const n of numbers) slot.put(n, LRN, t.clock.now());

    // The batch is in the file once a store opened afresh reads it (well within the timer's second).
    const committed = async () => {
      const fresh = await openStore(dir, { readOnly: true });
      const seen = fresh.store.slot('lrn', {}).has(numbers[1023] as string);
      await fresh.store.close();
      return seen;
    };
    for (let i = 0; i < 50 && !(await committed()); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await committed()).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    // Out of memory now, and read from the file: only because the transaction was let go at the commit.
    expect(numbers.every((n) => slot.get(n)?.fetchedAt === t.clock.now())).toBe(true);
    await store.close();
  });

  it("reads this process's own answers before they are committed: the batch being filled, those handed to lmdb, the newest first", async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const { store } = await openStore(dir, { clock: t.clock });
    const slot = store.slot('lrn', {});
    // 2,100 answers in one turn: two batches of 1,024 handed to lmdb's write thread, 52 still in the
    // one being filled, none committed yet (a commit lands in a later turn).
    const numbers = Array.from({ length: 2100 }, (_, i) => String(12016000000 + i));
    for (const n of numbers) slot.put(n, { ...LRN, lrn: n }, t.clock.now());
    expect(numbers.filter((n) => slot.get(n)?.result.lrn !== n)).toEqual([]);
    expect(numbers.every((n) => slot.has(n) && slot.kept?.(n)?.result.lrn === n)).toBe(true);
    // Put again while the first is on its way, and hand that batch over too: the newer answer is the
    // one read, now and once committed.
    const again = numbers[5] as string;
    t.advance(1000);
    slot.put(again, { ...LRN, lrn: 'newer' }, t.clock.now());
    expect(slot.get(again)?.result.lrn).toBe('newer');
    for (let i = 0; i < 1024; i++) slot.put(String(12017000000 + i), LRN, t.clock.now());
    expect(slot.get(again)?.result.lrn).toBe('newer');
    await store.close();
    const reopened = await openStore(dir, { clock: t.clock });
    expect(reopened.store.slot('lrn', {}).get(again)).toEqual({ result: { ...LRN, lrn: 'newer' }, fetchedAt: t.clock.now() });
    expect((await reopened.store.stats()).entries).toBe(2100 + 1024);
    await reopened.store.close();
  });

  it("another process's commit is read a second later at most, also by a store that stopped reading", async () => {
    const dir = await tempDir();
    await seed(dir, '12015550000');
    const { store } = await openStore(dir);
    const slot = store.slot('lrn', {});
    expect(slot.has('12017000000')).toBe(false);
    // Another store on the file, as another process would, commits an answer.
    await seed(dir, '12017000000');
    // Not in the transaction this store holds; the timer lets go of it.
    expect(slot.has('12017000000')).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect(slot.has('12017000000')).toBe(true);
    await store.close();
  });

  it('a lookup this store created reads nothing of the file for numbers it did not put, until another store marks it shared', async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const { store } = await openStore(dir, { clock: t.clock });
    // Every read of lmdb's (get too) comes down to getBinaryFast; answers have number keys.
    const db = (store as unknown as { open: { db: { getBinaryFast(key: unknown, o?: unknown): unknown } } }).open.db;
    const answerReads: unknown[] = [];
    const getBinaryFast = db.getBinaryFast.bind(db);
    db.getBinaryFast = (key: unknown, o?: unknown) => {
      if (typeof key === 'number') answerReads.push(key);
      return getBinaryFast(key, o);
    };
    const slot = store.slot('lrn', {});
    slot.put('12015550000', LRN, T0);
    // Bounded: until its batch (handed over after BATCH_MS) is committed.
    const internals = (store as unknown as { open: { batches: { batch: Map<unknown, unknown>; committing: unknown[] } } }).open.batches;
    for (let i = 0; i < 250 && (internals.batch.size > 0 || internals.committing.length > 0); i++) await new Promise((r) => setTimeout(r, 20));
    for (let i = 1; i <= 100; i++) {
      expect(slot.has(String(12015550000 + i))).toBe(false);
      expect(slot.get(String(12015550000 + i))).toBeUndefined();
    }
    expect(answerReads).toEqual([]);
    // What it put is read, from the file once committed.
    expect(slot.get('12015550000')).toEqual({ result: LRN, fetchedAt: T0 });
    expect(answerReads.length).toBe(1);

    // Another store (as another process would) puts an answer there, which marks the lookup shared.
    const other = await openStore(dir, { clock: t.clock });
    other.store.slot('lrn', {}).put('12015550050', ENHANCED, T0);
    await other.store.close();
    // Looked at again a second later at most, in a read transaction begun then; from then on read like any other.
    t.advance(1000);
    expect(slot.get('12015550050')).toEqual({ result: ENHANCED, fetchedAt: T0 });
    expect(slot.has('12015550051')).toBe(false);
    expect(answerReads.length).toBe(3);
    await store.close();

    // The mark stays: a store that opens the file later finds the lookup there, and reads every number.
    const later = await openStore(dir, { clock: t.clock });
    expect(later.store.slot('lrn', {}).get('12015550000')).toEqual({ result: LRN, fetchedAt: T0 });
    expect((later.store as unknown as { open: { db: { get(k: string): unknown } } }).open.db.get('shared/1')).toBe(1);
    await later.store.close();
  });

  it('prune removes expired entries, at most once a day when asked whether due; clear empties one lookup or all', async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const { store } = await openStore(dir, { clock: t.clock });
    for (let i = 0; i < 50; i++) {
      store.slot('lrn', {}).put(String(12015550000 + i), LRN, t.clock.now() - (i < 20 ? 2 * DAY : 0));
      store.slot('cnam', { spam: true }).put(String(12015550000 + i), { cnam: `N${i}` }, t.clock.now() - 2 * DAY);
    }
    expect(await store.pruneIfDue()).toBe(false); // a new cache: the first is due in a day
    const before = await store.stats();
    expect(before.kinds).toEqual({ lrn: { entries: 50, fresh: 30, expired: 20 }, cnam: { entries: 50, fresh: 50, expired: 0 }, trust: { entries: 0, fresh: 0, expired: 0 } });
    expect(before.entries).toBe(100);
    expect(before.bytes).toBeGreaterThan(0);
    expect(before.path).toBe(join(dir, 'answers.mdb'));

    t.advance(DAY + 1);
    expect((await store.stats()).kinds.lrn).toEqual({ entries: 50, fresh: 0, expired: 50 });
    expect(await store.pruneIfDue()).toBe(true);
    expect((await store.stats()).kinds.lrn).toEqual({ entries: 0, fresh: 0, expired: 0 });
    expect((await store.stats()).kinds.cnam).toEqual({ entries: 50, fresh: 50, expired: 0 });
    expect(await store.pruneIfDue()).toBe(false);
    expect(await store.prune()).toEqual({ removed: 0, left: 50 });

    expect(await store.clear('trust')).toBe(0);
    expect(await store.clear('cnam')).toBe(50);
    store.slot('trust', {}).put('12015550123', TRUST, t.clock.now());
    expect((await store.stats()).entries).toBe(1);
    expect(await store.clear()).toBe(1);
    expect((await store.stats()).entries).toBe(0);
    // Prefix ids survive a clear: a new answer goes in and comes out.
    store.slot('cnam', { spam: true }).put('12015550123', { cnam: 'again' }, t.clock.now());
    expect(store.slot('cnam', { spam: true }).get('12015550123')?.result).toEqual({ cnam: 'again' });
    await store.close();
  });

  it('a store that wrote prunes on close when a day has passed since the last prune', async () => {
    const dir = await tempDir();
    const t = fakeClock();
    const first = await openStore(dir, { clock: t.clock });
    first.store.slot('lrn', {}).put('12015550123', LRN, t.clock.now());
    await first.store.close(); // first prune bookkept, nothing removed
    t.advance(2 * DAY);
    const second = await openStore(dir, { clock: t.clock });
    expect((await second.store.stats()).kinds.lrn).toEqual({ entries: 1, fresh: 0, expired: 1 });
    await second.store.close(); // read only: no prune
    const third = await openStore(dir, { clock: t.clock });
    expect((await third.store.stats()).entries).toBe(1);
    third.store.slot('trust', {}).put('12015550123', TRUST, t.clock.now());
    await third.store.close();
    const fourth = await openStore(dir, { clock: t.clock });
    const stats = await fourth.store.stats();
    expect(stats.kinds.lrn.entries).toBe(0);
    expect(stats.kinds.trust.entries).toBe(1);
    expect(stats.prunedAt).toBe(t.clock.now());
    await fourth.store.close();
  });

  it('openAnswerStore: off (--no-cache, --sandbox) opens nothing; on uses NUMINTEL_CACHE_DIR', async () => {
    const home = await tempDir();
    const warn = () => {
      throw new Error('no warning expected');
    };
    const base = { env: {}, home, baseUrl: 'https://api.example.com/v1', clock: fakeClock().clock, warn };
    const off = await openAnswerStore({ ...base, mode: 'off' });
    expect(off).toBe(NO_STORE);
    off.slot('lrn', {}).put('12015550123', LRN, 1);
    expect(off.slot('lrn', {}).get('12015550123')).toBeUndefined();
    expect(() => statSync(join(home, '.cache'))).toThrow();

    const own = join(home, 'own-cache');
    const on = await openAnswerStore({ ...base, env: { NUMINTEL_CACHE_DIR: own }, mode: 'on' });
    on.slot('lrn', {}).put('12015550123', LRN, Date.UTC(2026, 0, 1));
    await on.close();
    expect(statSync(join(own, 'answers.mdb')).isFile()).toBe(true);
    // The whole base URL is part of the key, its path prefix too (trailing slashes aside).
    const same = await openAnswerStore({ ...base, baseUrl: 'https://api.example.com/v1/', env: { NUMINTEL_CACHE_DIR: own }, mode: 'on' });
    expect(same.slot('lrn', {}).get('12015550123')?.result).toEqual(LRN);
    await same.close();
    for (const baseUrl of ['https://api.example.com', 'https://api.example.com/v2', 'https://api.example.com/v1/x', 'https://api.example.com:8443/v1', 'http://api.example.com/v1']) {
      const other = await openAnswerStore({ ...base, baseUrl, env: { NUMINTEL_CACHE_DIR: own }, mode: 'on' });
      expect(other.slot('lrn', {}).get('12015550123'), baseUrl).toBeUndefined();
      await other.close();
    }
  });

  it('a cache written under a plain origin is read by a base URL without a path, with or without its slash', async () => {
    const dir = await tempDir();
    // As files written before the path was part of the key name their lookups: "<origin> <kind> <options>".
    const { store } = await openStore(dir, { service: 'https://api.example.com' });
    store.slot('lrn', {}).put('12015550123', LRN, T0);
    await store.close();
    const env = { NUMINTEL_CACHE_DIR: dir };
    for (const baseUrl of ['https://api.example.com', 'https://api.example.com/', 'https://API.example.com:443/']) {
      const again = await openAnswerStore({ mode: 'on', env, home: dir, baseUrl, clock: fakeClock().clock, warn: (m) => expect.fail(m) });
      expect(again.slot('lrn', {}).get('12015550123')?.result, baseUrl).toEqual(LRN);
      await again.close();
    }
  });

  it('answers a number the file holds without a write: a cache hit commits nothing, not even a prune that is due', async () => {
    const dir = await tempDir();
    const { clock, advance } = fakeClock();
    // Fetched when the hit comes, two days after the file was last pruned: a writer that closes
    // then prunes (a day has passed); a hit is no writer.
    const at = T0 + 2 * DAY;
    await seed(dir, '12015550123', at);
    await advance(2 * DAY);
    const txnid = () => {
      const fd = openSync(join(dir, 'answers.mdb'), 'r');
      try {
        const meta = newestMeta(fd, statSync(join(dir, 'answers.mdb')));
        if (typeof meta === 'string') throw new Error(meta);
        return meta.txnid;
      } finally {
        closeSync(fd);
      }
    };
    const before = txnid();
    const { store, warnings } = await openStore(dir, { clock });
    expect(store.slot('lrn', {}).get('12015550123')?.fetchedAt).toBe(at);
    expect(store.slot('lrn', {}).has('12015550123')).toBe(true);
    await store.close();
    expect(txnid()).toBe(before);
    expect(warnings).toEqual([]);
  });

  it('an answer dated in the future is stale, one dated past any clock is no answer, and a prune dated in the future is due', async () => {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    store.slot('lrn', {}).put('12015550101', LRN, T0 + 60_000); // a minute ahead: another clock
    store.slot('lrn', {}).put('12015550102', LRN, T0 + 30 * DAY); // a clock set back
    store.slot('lrn', {}).put('12015550103', LRN, 9e15); // no Date can show it
    store.slot('lrn', {}).put('12015550104', LRN, Number.NaN);
    await store.close();
    const { store: again, warnings } = await openStore(dir);
    const slot = again.slot('lrn', {});
    expect(slot.get('12015550101')?.fetchedAt).toBe(T0 + 60_000);
    expect(slot.get('12015550102')).toBeUndefined();
    expect(slot.has('12015550102')).toBe(false);
    expect(slot.kept?.('12015550102')?.fetchedAt).toBe(T0 + 30 * DAY);
    for (const n of ['12015550103', '12015550104']) {
      expect(slot.get(n)).toBeUndefined();
      expect(slot.has(n)).toBe(false);
      expect(slot.kept?.(n)).toBeUndefined();
    }
    const stats = await again.stats();
    expect(stats.kinds.lrn).toEqual({ entries: 4, fresh: 1, expired: 3 });
    await again.close();
    expect(warnings).toEqual([]);
    // Last pruned (by the clock of a writer) ten days from now: due now, not in ten days.
    const later = await openStore(dir, { clock: fakeClock(T0 + 10 * DAY).clock });
    expect(await later.store.prune()).toMatchObject({ removed: 4 });
    await later.store.close();
    const now = await openStore(dir);
    expect(await now.store.pruneIfDue()).toBe(true);
    await now.store.close();
  });
});

describe('a cache that cannot be used', () => {
  async function expectNoCache(dir: string, want: RegExp) {
    const { store, warnings } = await openStore(dir);
    expect(store.usable).toBe(false);
    expect(store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    store.slot('lrn', {}).put('12015550123', LRN, 1);
    expect(store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    expect(await store.prune()).toEqual({ removed: 0, left: 0 });
    await store.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(want);
    expect(warnings[0]).toMatch(/going on without it/);
  }

  async function validCache(): Promise<string> {
    const dir = await tempDir();
    const { store } = await openStore(dir);
    for (let i = 0; i < 3000; i++) store.slot('lrn', {}).put(String(12015550000 + i), { ...LRN, i }, T0);
    await store.close();
    return dir;
  }

  it('garbage bytes in the data file', async () => {
    const dir = await tempDir();
    const garbage = Buffer.alloc(100_000);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) & 0xff;
    writeFileSync(join(dir, 'answers.mdb'), garbage);
    await expectNoCache(dir, /damaged: it is not an LMDB file/);
  });

  it('a short file', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'answers.mdb'), 'hi\n');
    await expectNoCache(dir, /damaged: it is too short.*`numintel cache clear` starts it afresh/);
  });

  it('a truncated cache', async () => {
    const dir = await validCache();
    const path = join(dir, 'answers.mdb');
    writeFileSync(path, pagesInUse(path).subarray(0, 3 * 4096 + 100));
    await expectNoCache(dir, /damaged: it is truncated/);
  });

  it('damage inside a valid file: found by the walk before LMDB follows it, never a crash', async () => {
    const original = pagesInUse(join(await validCache(), 'answers.mdb'));
    const size = original.length;
    let warned = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const dir = await tempDir();
      const file = join(dir, 'answers.mdb');
      const bytes = Buffer.from(original);
      // A few splats of pseudo-random bytes past the two meta pages.
      let x = seed * 2654435761;
      const next = () => (x = (Math.imul(x ^ (x >>> 15), 2246822519) + 0x9e3779b9) >>> 0);
      for (let s = 0; s < 1 + (seed % 5); s++) {
        const at = 8192 + (next() % (size - 8192));
        for (let i = 0; i < 1 + (next() % 200) && at + i < size; i++) bytes[at + i] = next() & 0xff;
      }
      writeFileSync(file, bytes, { mode: 0o600 });
      const { store, warnings } = await openStore(dir);
      for (let i = 0; i < 3000; i++) store.slot('lrn', {}).get(String(12015550000 + i));
      store.slot('trust', {}).put('12015550123', TRUST, T0);
      await store.prune();
      await store.close();
      expect(warnings.length).toBeLessThanOrEqual(1);
      warned += warnings.length;
    }
    // Most splats land in pages LMDB would follow; each of those is one warning, not a crash.
    expect(warned).toBeGreaterThan(0);
  });

  it('a walked file is remembered until it changes', async () => {
    const dir = await validCache();
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(dir, 'answers.mdb-checked'))).toBe(true);
    // The root page's own number overwritten: the next open walks the changed file and refuses it.
    const file = join(dir, 'answers.mdb');
    const bytes = pagesInUse(file);
    // The main tree's root, from the newer meta page.
    const root = Number(bytes.readBigUInt64LE(newerMeta(bytes) + 48 + 48 + 40));
    bytes.writeBigUInt64LE(999_999n, root * 4096);
    overwrite(file, bytes);
    await expectNoCache(dir, /damaged: page \d+: it carries another page number/);
  });

  it('an open to write that writes nothing leaves the file remembered as that open left it (no walk next time)', async () => {
    const dir = await validCache();
    const file = join(dir, 'answers.mdb');
    const before = statSync(file).mtimeMs;
    // A cache hit: the store opens the file to write (lmdb-js sets its time as it opens) and reads.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { store, warnings } = await openStore(dir);
    expect(store.slot('lrn', {}).get('12015550007')?.result).toEqual({ ...LRN, i: 7 });
    await store.close();
    expect(warnings).toEqual([]);
    const info = statSync(file);
    expect(info.mtimeMs).not.toBe(before);
    const fd = openSync(file, 'r');
    let meta;
    try {
      meta = newestMeta(fd, statSync(file));
    } finally {
      closeSync(fd);
    }
    if (typeof meta === 'string') throw new Error(meta);
    expect(JSON.parse(readFileSync(`${file}-checked`, 'utf8'))).toEqual({ txnid: String(meta.txnid), size: info.size, mtimeMs: info.mtimeMs });
  });

  it('garbage in the lock file is repaired by LMDB', async () => {
    const dir = await validCache();
    writeFileSync(join(dir, 'answers.mdb-lock'), Buffer.alloc(8272, 0xa5));
    const { store, warnings } = await openStore(dir);
    expect(store.slot('lrn', {}).get('12015550007')?.result).toEqual({ ...LRN, i: 7 });
    await store.close();
    expect(warnings).toEqual([]);
  });

  it('a file where the directory should be', async () => {
    const dir = join(await tempDir(), 'numintel');
    writeFileSync(dir, 'not a directory');
    await expectNoCache(dir, /ENOTDIR.*NUMINTEL_CACHE_DIR chooses another/);
  });

  it('a directory that cannot be made (under a regular file)', async () => {
    const file = join(await tempDir(), 'file');
    writeFileSync(file, '');
    await expectNoCache(join(file, 'numintel'), /ENOTDIR/);
  });

  it('a directory nobody may write (under /proc, which even root cannot)', async () => {
    await expectNoCache('/proc/numintel-cache', /(ENOENT|EACCES|EROFS|EPERM).*NUMINTEL_CACHE_DIR chooses another/);
  });

  it('a directory at the data file\'s place', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, 'answers.mdb'));
    await expectNoCache(dir, /answers\.mdb: it is a directory, not a regular file.*something else is in its place/);
  });

  // LMDB maps the lock file: /dev/zero there crashed the process (SIGSEGV), a directory crashed a
  // reader; a FIFO for any of the files hung the open. Each is one warning, read-only or not.
  describe.each([false, true])('files that are not files (read-only: %s)', (readOnly) => {
    const cases: [string, (file: string) => void, RegExp][] = [
      ['answers.mdb-lock', (f) => symlinkSync('/dev/zero', f), /answers\.mdb-lock: it is a character device, not a regular file/],
      ['answers.mdb-lock', (f) => mkdirSync(f), /answers\.mdb-lock: it is a directory, not a regular file/],
      ['answers.mdb-lock', (f) => execFileSync('mkfifo', [f]), /answers\.mdb-lock: it is a FIFO, not a regular file/],
      ['answers.mdb', (f) => execFileSync('mkfifo', [f]), /answers\.mdb: it is a FIFO, not a regular file/],
      ['answers.mdb', (f) => symlinkSync('/dev/zero', f), /answers\.mdb: it is a character device, not a regular file/],
    ];
    it.each(cases)('%s made by %s', async (name, make, want) => {
      const dir = await validCache();
      rmSync(join(dir, name), { recursive: true, force: true });
      make(join(dir, name));
      const { store, warnings } = await openStore(dir, readOnly ? { readOnly } : {});
      expect(store.usable).toBe(false);
      expect(store.slot('lrn', {}).get('12015550007')).toBeUndefined();
      await store.stats();
      await store.close();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(want);
      expect(warnings[0]).not.toMatch(/damaged|cache clear/);
    });
  });

  it('a FIFO or a device where the walked-file note is: ignored, the file is walked and the cache used', async () => {
    for (const make of [(f: string) => execFileSync('mkfifo', [f]), (f: string) => symlinkSync('/dev/zero', f)]) {
      const dir = await validCache();
      rmSync(join(dir, 'answers.mdb-checked'));
      make(join(dir, 'answers.mdb-checked'));
      const { store, warnings } = await openStore(dir, { readOnly: true });
      expect(store.slot('lrn', {}).get('12015550007')?.result).toEqual({ ...LRN, i: 7 });
      await store.close();
      expect(warnings).toEqual([]);
    }
  });

  it('a file numintel may not read is said to be so, and no clearing advised', () => {
    const failure = cacheFailure(Object.assign(new Error("EACCES: permission denied, open '/c/answers.mdb'"), { code: 'EACCES' }));
    expect(failure.reason).toBe("EACCES: permission denied, open '/c/answers.mdb'");
    expect(failure.remedy).toMatch(/may not read or write there/);
    expect(failure.remedy).not.toMatch(/clear/);
  });
});
