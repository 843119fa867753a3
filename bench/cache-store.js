#!/usr/bin/env node
// The persistent lookup cache alone (dist/store/lmdb-store.js, LMDB): bytes on disk per entry,
// puts per second, warm gets per second (the raw rate a warm re-run can read answers at), and the
// time of a full prune scan (what a run pays once a day). Numbers are unique valid numbers spread
// over the whole NANP range, written in that random order, as a run writes them.
// Run after `npm run build`:
//   node bench/cache-store.js [entries=1000000] [plain|enhanced]
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { checkLmdbFile } from '../dist/store/lmdb-file.js';
import { LmdbAnswerStore } from '../dist/store/lmdb-store.js';
import { fmt, report, tempDir, validNumbers } from './lib/harness.js';

const entries = Number(process.argv[2] ?? 1_000_000);
const variant = process.argv[3] ?? 'plain';
const options = variant === 'enhanced' ? { enhanced: true } : {};
const CARRIERS = ['Verizon Wireless', 'T-Mobile USA', 'AT&T Mobility', 'Comcast', 'Bandwidth.com CLEC'];

/** An answer shaped as the service's LRN result (the sandbox's values, made up). */
function result(n, i) {
  const base = { lrn: `1${n.slice(1, 7)}${String(i % 10_000).padStart(4, '0')}`, lrn_activated_at: i % 7 === 0 ? null : `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}T00:00:00+00:00` };
  if (variant !== 'enhanced') return base;
  return {
    ...base,
    enhanced_lrn_data: {
      carrier: CARRIERS[i % CARRIERS.length], carrier_type: i % 3 ? 'wireless' : 'landline', city: 'HOBOKEN', zip_code: '07030',
      county: 'HUDSON', timezone: 'America/New_York', state: 'NJ', rate_center: 'HOBOKEN', lata: '224', ocn: String(6000 + (i % 500)),
    },
  };
}

const tmp = await tempDir();
const clock = { now: () => Date.now(), sleep: async () => {} };
try {
  const numbers = validNumbers(entries, 3);
  const dir = join(tmp.dir, 'cache');
  const warn = (m) => console.error(`warning: ${m}`);
  const open = () => LmdbAnswerStore.open({ dir, service: 'https://api.example.com', clock, warn });

  let store = await open();
  let slot = store.slot('lrn', options);
  const now = Date.now();
  let t = performance.now();
  for (let i = 0; i < entries; i++) {
    slot.put(numbers[i], result(numbers[i], i), now);
    // As a run would: answers arrive a few at a time, and lmdb commits what came in meanwhile.
    if (i % 16 === 15) await new Promise((r) => setImmediate(r));
  }
  await store.close();
  const putSeconds = (performance.now() - t) / 1000;
  // The pages in use (on Linux the file is as large as its map, the rest sparse: `blocks` says so).
  const { open: openLmdb } = await import('lmdb');
  const raw = openLmdb({ path: join(dir, 'answers.mdb'), readOnly: true });
  const s = raw.getStats();
  const bytes = (s.lastPageNumber + 1) * s.pageSize;
  const allocated = statSync(join(dir, 'answers.mdb')).blocks * 512;
  // The B-tree alone; the rest of the used pages are pages freed by copy-on-write, kept for reuse.
  const treeBytes = (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
  await raw.close();

  store = await open();
  slot = store.slot('lrn', options);
  // Warm: every entry read once in another order, as a re-run of a shuffled file would.
  const order = Array.from({ length: entries }, (_, i) => (i * 7919) % entries);
  let hits = 0;
  t = performance.now();
  for (const i of order) if (slot.get(numbers[i])) hits++;
  const getSeconds = (performance.now() - t) / 1000;
  if (hits !== entries) throw new Error(`only ${hits} of ${entries} answers read back`);
  t = performance.now();
  const { removed: pruned } = await store.prune();
  const pruneSeconds = (performance.now() - t) / 1000;
  await store.close();
  // What an open pays once after another program changed the file: the walk of both B-trees.
  t = performance.now();
  const damage = checkLmdbFile(join(dir, 'answers.mdb'), false).problem;
  const walkSeconds = (performance.now() - t) / 1000;
  if (damage) throw new Error(`the walk refused a whole file: ${damage}`);

  console.log(`cache store: ${fmt(entries)} LRN answers (${variant}), lmdb, node ${process.version}`);
  console.log(`  on disk:    ${fmt(bytes / 1048576, 1)} MB, ${fmt(bytes / entries, 1)} bytes an entry (pages in use; ${fmt(allocated / 1048576, 1)} MB allocated on the disk); B-tree ${fmt(treeBytes / entries, 1)} bytes an entry`);
  console.log(`  puts:       ${fmt(entries / putSeconds)}/s (${putSeconds.toFixed(1)} s, committed)`);
  console.log(`  warm gets:  ${fmt(entries / getSeconds)}/s (${getSeconds.toFixed(2)} s, all hits)`);
  console.log(`  prune scan: ${pruneSeconds.toFixed(2)} s (${pruned} expired)`);
  console.log(`  file walk:  ${walkSeconds.toFixed(2)} s (on an open after another program changed the file)`);
  report('cache-store', { entries, variant, bytesPerEntry: bytes / entries, treeBytesPerEntry: treeBytes / entries, putRate: entries / putSeconds, getRate: entries / getSeconds, pruneSeconds, walkSeconds });
} finally {
  await tmp.remove();
}
