// The cache for runs of a few numbers (light-store.ts) against real files: a number the cache does
// not hold leaves LMDB unopened and its answer waiting in pending/; every later store reads it
// there (light, LMDB, read-only), freshness judged as for the file's; a number the file holds
// opens LMDB; the next store that opens LMDB for writing moves the waiting answers in, never over a
// newer one, and removes their files.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { steppedClock } from '../support/clock.js';
import type { AnswerStore } from '../../src/store/answer-store.js';
import { LightAnswerStore } from '../../src/store/light-store.js';
import { newestMeta } from '../../src/store/lmdb-file.js';
import { LmdbAnswerStore, type LmdbStoreOptions } from '../../src/store/lmdb-store.js';
import { pendingDir, readPending, writePending } from '../../src/store/pending-answers.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const ORIGIN = 'https://api.example.com';
const LOOKUP = `${ORIGIN} lrn `;
const lrn = (n: string, extra = '') => ({ lrn: n, lrn_activated_at: `2021-09-01T00:00:00+00:00${extra}` });

function options(dir: string, extra: Partial<LmdbStoreOptions> = {}) {
  const warnings: string[] = [];
  const clock = steppedClock(T0);
  return { warnings, clock, opts: { dir, origin: ORIGIN, clock, warn: (m: string) => warnings.push(m), ...extra } satisfies LmdbStoreOptions };
}

const light = async (opts: LmdbStoreOptions) => (await LightAnswerStore.open(opts)) as LightAnswerStore;
const waitingFiles = (dir: string) => (existsSync(pendingDir(dir)) ? readdirSync(pendingDir(dir)) : []);

/** Puts through an LMDB store (a bulk run's) and closes it. */
async function putInFile(opts: LmdbStoreOptions, answers: [string, number][]): Promise<void> {
  const store = await LmdbAnswerStore.open(opts);
  for (const [n, at] of answers) store.slot('lrn', {}).put(n, lrn(n), at);
  await store.close();
}

describe('a light store (numbers given as arguments)', () => {
  it('looks up a number the cache does not hold without opening LMDB, and leaves its answer waiting in one file', async () => {
    const dir = await tempDir();
    const { opts, warnings } = options(dir);
    const store = await light(opts);
    const slot = store.slot('lrn', {});
    expect(slot.get('12015550123')).toBeUndefined();
    expect(slot.has('12015550123')).toBe(false);
    expect(slot.put('12015550123', lrn('12015550123'), T0)).toBe(true);
    expect(slot.put('12015550124', lrn('12015550124'), T0)).toBe(true);
    // Read back within the run.
    expect(slot.kept?.('12015550123')).toEqual({ result: lrn('12015550123'), fetchedAt: T0 });
    await store.close();
    expect(store.opened).toBe(false);
    expect(existsSync(join(dir, 'answers.mdb'))).toBe(false);
    expect(waitingFiles(dir)).toHaveLength(1);
    expect(readPending(pendingDir(dir)).answers).toEqual([
      { lookup: LOOKUP, number: '12015550123', fetchedAt: T0, result: lrn('12015550123') },
      { lookup: LOOKUP, number: '12015550124', fetchedAt: T0, result: lrn('12015550124') },
    ]);
    expect(warnings).toEqual([]);
  });

  it('answers from the waiting answers while they are fresh, and only for their lookup and options', async () => {
    const dir = await tempDir();
    const { opts, clock } = options(dir);
    const first = await light(opts);
    first.slot('lrn', {}).put('12015550123', lrn('12015550123'), T0);
    await first.close();
    const second = await light(opts);
    expect(second.slot('lrn', {}).get('12015550123')).toEqual({ result: lrn('12015550123'), fetchedAt: T0 });
    expect(second.slot('lrn', {}).has('12015550123')).toBe(true);
    expect(second.slot('lrn', { enhanced: true }).get('12015550123')).toBeUndefined();
    expect(second.slot('cnam', {}).has('12015550123')).toBe(false);
    // Past lrn's max age (a day): not an answer, still what is held.
    clock.advance(25 * HOUR);
    expect(second.slot('lrn', {}).get('12015550123')).toBeUndefined();
    expect(second.slot('lrn', {}).has('12015550123')).toBe(false);
    expect(second.slot('lrn', {}).kept?.('12015550123')?.fetchedAt).toBe(T0);
    await second.close();
    expect(second.opened).toBe(false);
    // Another service's store does not see them.
    const other = await light({ ...opts, origin: 'https://other.example.com' });
    expect(other.slot('lrn', {}).get('12015550123')).toBeUndefined();
    await other.close();
  });

  it('opens LMDB for a number the file holds, answers it from there, and moves its own answers in', async () => {
    const dir = await tempDir();
    const { opts, warnings } = options(dir);
    await putInFile(opts, [['12015550123', T0]]);
    const store = await light(opts);
    const slot = store.slot('lrn', {});
    // A number of this lookup the file lacks: still light.
    expect(slot.get('12015550999')).toBeUndefined();
    slot.put('12015550999', lrn('12015550999'), T0 + 1);
    expect(store.opened).toBe(false);
    expect(slot.get('12015550123')).toEqual({ result: lrn('12015550123'), fetchedAt: T0 });
    expect(store.opened).toBe(true);
    // What it fetched before is in LMDB now, and later answers go there too.
    expect(slot.get('12015550999')?.fetchedAt).toBe(T0 + 1);
    store.slot('trust', {}).put('12015550123', { trust_level: 'high' }, T0 + 2);
    await store.close();
    expect(waitingFiles(dir)).toEqual([]);
    const reader = await LmdbAnswerStore.open({ ...opts, readOnly: true });
    expect(reader.slot('lrn', {}).get('12015550999')?.fetchedAt).toBe(T0 + 1);
    expect(reader.slot('trust', {}).get('12015550123')?.result).toEqual({ trust_level: 'high' });
    expect((await reader.stats()).entries).toBe(3);
    await reader.close();
    expect(warnings).toEqual([]);
  });

  it('answers a number the file holds without a write: a cache hit commits nothing, not even a prune that is due', async () => {
    const dir = await tempDir();
    const { opts, warnings, clock } = options(dir);
    // Fetched when the hit comes, two days after the file was last pruned: a writer that closes
    // then prunes (a day has passed); a hit is no writer.
    const at = T0 + 2 * 24 * HOUR;
    await putInFile(opts, [['12015550123', at]]);
    await clock.advance(2 * 24 * HOUR);
    const txnid = () => {
      const fd = openSync(join(dir, 'answers.mdb'), 'r');
      try {
        const meta = newestMeta(fd, fstatSync(fd));
        if (typeof meta === 'string') throw new Error(meta);
        return meta.txnid;
      } finally {
        closeSync(fd);
      }
    };
    const before = txnid();
    const store = await light(opts);
    expect(store.slot('lrn', {}).get('12015550123')?.fetchedAt).toBe(at);
    expect(store.opened).toBe(true);
    await store.close();
    expect(txnid()).toBe(before);
    expect(warnings).toEqual([]);
  });

  it('is the LMDB store itself for --refresh, for a reader, and once MERGE_AT files wait (which it moves in)', async () => {
    const dir = await tempDir();
    const { opts } = options(dir);
    const refresh = await LightAnswerStore.open({ ...opts, refresh: true });
    expect(refresh).toBeInstanceOf(LmdbAnswerStore);
    await refresh.close();
    for (let i = 0; i < 15; i++) writePending(pendingDir(dir), [{ lookup: LOOKUP, number: `120155501${String(i).padStart(2, '0')}`, fetchedAt: T0, result: lrn('x') }]);
    const fifteen = await LightAnswerStore.open(opts);
    expect(fifteen).toBeInstanceOf(LightAnswerStore);
    await fifteen.close();
    writePending(pendingDir(dir), [{ lookup: LOOKUP, number: '12015550199', fetchedAt: T0, result: lrn('x') }]);
    const sixteen: AnswerStore = await LightAnswerStore.open(opts);
    expect(sixteen).toBeInstanceOf(LmdbAnswerStore);
    expect(waitingFiles(dir)).toEqual([]);
    expect(sixteen.slot('lrn', {}).get('12015550199')?.fetchedAt).toBe(T0);
    expect(((await (sixteen as LmdbAnswerStore).stats()).entries)).toBe(16);
    await sixteen.close();
  });

  it('warns at close when its answers cannot be left (the cache directory is a file), and the run has its answers', async () => {
    const root = await tempDir();
    const dir = join(root, 'cache');
    writeFileSync(dir, 'not a directory');
    const { opts, warnings } = options(dir);
    const store = await light(opts);
    const slot = store.slot('lrn', {});
    expect(slot.get('12015550123')).toBeUndefined();
    slot.put('12015550123', lrn('12015550123'), T0);
    expect(slot.get('12015550123')?.fetchedAt).toBe(T0);
    await store.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the lookup cache cannot be used \(.*\); this run's answers were not kept \(something else is in its place/);
  });
});

describe('answers waiting in pending/', () => {
  it('an LMDB writer moves them in at open, keeps a newer answer the file has, and removes their files', async () => {
    const dir = await tempDir();
    const { opts, warnings } = options(dir);
    await putInFile(opts, [['12015550123', T0 + 10]]);
    writePending(pendingDir(dir), [
      { lookup: LOOKUP, number: '12015550123', fetchedAt: T0, result: lrn('12015550123', ' older') },
      { lookup: LOOKUP, number: '12015550124', fetchedAt: T0, result: lrn('12015550124') },
    ]);
    writePending(pendingDir(dir), [
      { lookup: LOOKUP, number: '12015550124', fetchedAt: T0 + 5, result: lrn('12015550124', ' newer') },
      // An older one for the same number after it (of another run that rewrote its answer).
      { lookup: LOOKUP, number: '12015550124', fetchedAt: T0 + 1, result: lrn('12015550124', ' old') },
      { lookup: `${ORIGIN} cnam spam`, number: '12015550125', fetchedAt: T0, result: { caller_name: 'X' } },
      { lookup: LOOKUP, number: '555', fetchedAt: T0, result: lrn('555') },
    ]);
    // Not answers: another file, a broken one, a temporary one still being written ...
    mkdirSync(join(pendingDir(dir), 'sub'));
    writeFileSync(join(pendingDir(dir), 'broken.json'), '[["half');
    writeFileSync(join(pendingDir(dir), '.fresh.tmp'), '[]');
    // ... and one a process killed while writing it left two hours ago.
    writeFileSync(join(pendingDir(dir), '.stale.tmp'), '[');
    utimesSync(join(pendingDir(dir), '.stale.tmp'), new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR));
    const store = await LmdbAnswerStore.open(opts);
    expect(waitingFiles(dir).sort()).toEqual(['.fresh.tmp', 'sub']);
    expect(store.slot('lrn', {}).get('12015550123')).toEqual({ result: lrn('12015550123'), fetchedAt: T0 + 10 });
    expect(store.slot('lrn', {}).get('12015550124')).toEqual({ result: lrn('12015550124', ' newer'), fetchedAt: T0 + 5 });
    expect(store.slot('lrn', {}).get('555')?.result).toEqual(lrn('555'));
    expect(store.slot('cnam', { spam: true }).get('12015550125')?.result).toEqual({ caller_name: 'X' });
    expect((await store.stats()).entries).toBe(4);
    await store.close();
    expect(warnings).toEqual([]);
  });

  it('a merge LMDB refuses (the disk full) warns once and leaves their files for the next', async () => {
    const dir = await tempDir();
    writePending(pendingDir(dir), [{ lookup: LOOKUP, number: '12015550124', fetchedAt: T0, result: lrn('12015550124') }]);
    // Room at the open, none at the merge.
    let free = [2 ** 40];
    const { opts, warnings } = options(dir, { writeMap: true, freeBytes: () => free.shift() ?? 0 });
    const store = await LmdbAnswerStore.open(opts);
    expect(warnings).toEqual([expect.stringMatching(/^the lookup cache cannot be used \(ENOSPC: .*\); going on without it \(the disk is full\)$/)]);
    await store.close();
    expect(waitingFiles(dir)).toHaveLength(1);
    free = [2 ** 40, 2 ** 40, 2 ** 40];
    const again = await LmdbAnswerStore.open({ ...opts, freeBytes: () => 2 ** 40 });
    expect(again.slot('lrn', {}).get('12015550124')?.fetchedAt).toBe(T0);
    await again.close();
    expect(waitingFiles(dir)).toEqual([]);
  });

  it('a reader reads them beside the file, the newer of the two, and counts each number once, creating nothing', async () => {
    const dir = await tempDir();
    const { opts } = options(dir);
    writePending(pendingDir(dir), [{ lookup: LOOKUP, number: '12015550124', fetchedAt: T0, result: lrn('12015550124') }]);
    // No LMDB file yet: a reader still has the waiting answers.
    const before = await LmdbAnswerStore.open({ ...opts, readOnly: true });
    expect(before.slot('lrn', {}).has('12015550124')).toBe(true);
    expect((await before.stats()).entries).toBe(1);
    await before.close();
    expect(existsSync(join(dir, 'answers.mdb'))).toBe(false);
    // A file holding an older answer for one number and a newer for another; then one more waits.
    await putInFile(opts, [
      ['12015550123', T0 + 10],
      ['12015550125', T0 - 10],
    ]);
    writePending(pendingDir(dir), [
      { lookup: LOOKUP, number: '12015550123', fetchedAt: T0, result: lrn('12015550123', ' older') },
      { lookup: LOOKUP, number: '12015550125', fetchedAt: T0, result: lrn('12015550125', ' newer') },
    ]);
    const reader = await LmdbAnswerStore.open({ ...opts, readOnly: true });
    const slot = reader.slot('lrn', {});
    expect(slot.get('12015550123')).toEqual({ result: lrn('12015550123'), fetchedAt: T0 + 10 });
    expect(slot.get('12015550125')).toEqual({ result: lrn('12015550125', ' newer'), fetchedAt: T0 });
    expect((await reader.stats()).entries).toBe(3);
    await reader.close();
    expect(waitingFiles(dir)).toHaveLength(1);
  });
});
