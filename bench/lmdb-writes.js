#!/usr/bin/env node
// What writing answers into LMDB costs by itself, outside a run: a million random 11-digit keys
// with LRN answers, put with the store's own open options (src/store/lmdb-store.ts), in the ways a
// cold cache run could write them. CPU per entry (user+sys of this process, lmdb's write thread
// included), what the writes sent towards the disk (/proc/self/io write_bytes, pages made dirty:
// a page dirtied again before the kernel wrote it back counts once) and the bytes in use per entry
// (RSS is not told apart: the entries themselves are held). The figures behind README's Design
// note on the lookup cache's cost in a cold run.
//   node bench/lmdb-writes.js [entries=1000000]
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { prng } from '../dist/core/prng.js';
import { fmt, report, tempDir } from './lib/harness.js';

const entries = Number(process.argv[2] ?? 1_000_000);
const STRIDE = 1e11;

/** The entries, made once: [key, [fetchedAt, result]] as the store puts them. */
function answers() {
  const random = prng(7);
  const out = [];
  for (let i = 0; i < entries; i++) {
    const number = 12_000_000_000 + Math.floor(random() * 9_000_000_000);
    out.push([STRIDE + number, [Date.now(), { lrn: String(number), lrn_activated_at: '2018-06-26T22:40:24-05:00' }]]);
  }
  return out;
}

/** The store's open options (lmdb-store.ts): pages written in place on Linux, copied elsewhere. */
const STORE = { compression: false, sharedStructuresKey: Symbol.for('structures'), noSync: true };
const IN_PLACE = { ...STORE, useWritemap: true, mapSize: 2 ** 30 };
const COPIED = { ...STORE, mapSize: 2 ** 36 };

const MODES = {
  // As the store commits: batches of 1,024 in arrival (random) order.
  'batches of 1,024, in place (Linux)': { batch: 1024, options: IN_PLACE },
  'batches of 1,024, copied': { batch: 1024, options: COPIED },
  // The store's options until commits were left to the kernel.
  'copied, a sync per commit': { batch: 1024, options: { ...COPIED, noSync: false, overlappingSync: false, noMetaSync: true } },
  'in place, batches of 16,384': { batch: 16_384, options: IN_PLACE },
  'copied, batches of 16,384': { batch: 16_384, options: COPIED },
  'copied, one sorted transaction': { batch: Infinity, sorted: true, options: COPIED },
};

/** Bytes this process has sent towards the disk so far. */
const written = () => Number(/write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN);

const tmp = await tempDir();
try {
  const all = answers();
  const sorted = [...all].sort((a, b) => a[0] - b[0]);
  console.log(`lmdb alone: ${fmt(entries)} random LRN answers, the store's open options (node ${process.version})`);
  for (const [name, mode] of Object.entries(MODES)) {
    const path = join(tmp.dir, 'answers.mdb');
    rmSync(path, { force: true });
    rmSync(`${path}-lock`, { force: true });
    const db = open({ path, ...mode.options });
    const list = mode.sorted ? sorted : all;
    const before = process.cpuUsage();
    const writtenBefore = written();
    const started = performance.now();
    let pending = [];
    for (let i = 0; i < list.length; i += mode.batch === Infinity ? list.length : mode.batch) {
      const batch = list.slice(i, i + mode.batch);
      pending.push(db.batch(() => { for (const [key, value] of batch) void db.put(key, value); }));
      // The store keeps a few commits in flight, not a million promises.
      if (pending.length > 8) await pending.shift();
    }
    await Promise.all(pending);
    await db.flushed;
    // What the store's close does: everything committed, to the disk.
    db.env.sync();
    const cpu = process.cpuUsage(before);
    const seconds = (performance.now() - started) / 1000;
    const disk = written() - writtenBefore;
    const stored = db.getCount();
    const { lastPageNumber, pageSize } = db.getStats();
    await db.close();
    // Pages in use: a file written in place is as large as its map, the rest a hole.
    const bytes = (lastPageNumber + 1) * pageSize;
    const us = (cpu.user + cpu.system) / entries;
    console.log(`  ${name.padEnd(34)} ${us.toFixed(1).padStart(5)} µs/entry CPU (${(cpu.system / entries).toFixed(1)} in the kernel), ${seconds.toFixed(1)} s, ${fmt(disk / 2 ** 20)} MB to the disk, ${fmt(bytes / stored)} bytes/entry`);
    report('lmdb-writes', { mode: name, entries, cpuUs: us, sysUs: cpu.system / entries, seconds, diskMb: disk / 2 ** 20, bytesPerEntry: bytes / stored });
  }
} finally {
  await tmp.remove();
}
