#!/usr/bin/env node
// `--dry-run` over a large CSV with the real CLI: rows per second and peak RSS, with an empty
// cache and with a warm one (every number cached fresh, so each row is also a cache read).
// The CSV has unique valid numbers plus, every 10th row, a repeat and, every 25th, an invalid cell.
// Run after `npm run build`:
//   node bench/dry-run.js [rows=1000000]
import { join } from 'node:path';
import { LmdbAnswerStore } from '../dist/store/lmdb-store.js';
import { fmt, report, runCli, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const tmp = await tempDir();
try {
  const numbers = validNumbers(rows, 5);
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,name,phone', numbers, (n, i) => `${i},name ${i},${i % 25 === 24 ? '555-01' : i % 10 === 9 ? numbers[i - 5] : n}`);
  const cacheDir = join(tmp.dir, 'cache');
  const env = { PATH: process.env.PATH ?? '', HOME: tmp.dir, NUMINTEL_CONFIG_DIR: join(tmp.dir, 'config'), NUMINTEL_CACHE_DIR: cacheDir, NUMINTEL_BASE_URL: 'https://api.example.com' };
  const args = ['lrn', '-i', input, '--dry-run', '-f', 'json', '--price', 'lrn=0.0005'];

  console.log(`dry run: ${fmt(rows)} CSV rows, lrn, node ${process.version}`);
  const cold = await runCli(args, env);
  console.log(`  empty cache: ${fmt(rows / cold.seconds)} rows/s (${cold.seconds.toFixed(1)} s incl. start-up), peak RSS ${fmt(cold.peakMb)} MB`);
  report('dry-run', { rows, cache: 'empty', rate: rows / cold.seconds, peakMb: cold.peakMb });

  const store = await LmdbAnswerStore.open({ dir: cacheDir, service: 'https://api.example.com', clock: { now: () => Date.now(), sleep: async () => {} }, warn: console.error });
  const slot = store.slot('lrn', {});
  for (let i = 0; i < rows; i++) {
    slot.put(numbers[i], { lrn: numbers[i], lrn_activated_at: null }, Date.now());
    if (i % 10_000 === 9_999) await new Promise((r) => setImmediate(r));
  }
  await store.close();
  const warm = await runCli(args, env);
  console.log(`  warm cache:  ${fmt(rows / warm.seconds)} rows/s (${warm.seconds.toFixed(1)} s incl. start-up), peak RSS ${fmt(warm.peakMb)} MB`);
  report('dry-run', { rows, cache: 'warm', rate: rows / warm.seconds, peakMb: warm.peakMb });
} finally {
  await tmp.remove();
}
