#!/usr/bin/env node
// The persistent cache in whole runs of the CLI over a CSV of unique valid numbers (sandbox limits
// off, --rate 0): a cold run with --no-cache, a cold run that fills a fresh cache, then a warm
// re-run of the same file from that cache (the service must see no request). Rows/s end to end
// (start-up included) and the peak RSS of each. With rounds > 1 the three run in turn that many
// times (each cold run in a fresh cache) and the figures are medians, the ratio the median of each
// round's cold ÷ --no-cache: on a shared 2-core machine one pair of runs can land in different
// moments of its load (pairs of the same build measured 73% and 93% within an hour).
// Run after `npm run build`:
//   node bench/cache-run.js [rows=200000] [concurrency=32] [rounds=1]
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 200_000);
const concurrency = Number(process.argv[3] ?? 32);
const rounds = Number(process.argv[4] ?? 1);

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
let failed = false;
try {
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,phone', validNumbers(rows, 5), (n, i) => `${i},${n}`);
  const env = cliEnv(tmp.dir, sandbox);
  console.log(`cache runs: ${fmt(rows)} unique numbers, CSV in → CSV out, --rate 0 --concurrency ${concurrency}, ${rounds} round(s) (node ${process.version})`);
  const runs = { 'no-cache': [], cold: [], warm: [] };
  for (let round = 0; round < rounds; round++) {
    // Each round's cold run fills a cache of its own, which its warm run then reads.
    const cache = { NUMINTEL_CACHE_DIR: join(tmp.dir, `cache-${round}`) };
    for (const [name, extra] of [['no-cache', ['--no-cache']], ['cold', []], ['warm', []]]) {
      await sandbox.reset();
      const output = join(tmp.dir, `out-${name}.csv`);
      const cli = await runCli(['lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q', ...extra], { ...env, ...cache });
      const written = (await countLines(output)) - 1;
      if (written !== rows) throw new Error(`${name}: CLI wrote ${written} rows of ${rows}`);
      const sent = (await sandbox.stats()).requests.total;
      const rate = rows / cli.seconds;
      runs[name].push({ rate, peakMb: cli.peakMb, sent });
      console.log(`  ${name.padEnd(8)} ${fmt(rate).padStart(9)} rows/s  peak RSS ${fmt(cli.peakMb).padStart(4)} MB  to the disk ${fmt(cli.diskMb).padStart(5)} MB  requests the service saw: ${fmt(sent)}`);
      report('cache-run', { run: name, round, rows, rate, peakMb: cli.peakMb, diskMb: cli.diskMb, sent });
      await rm(output, { force: true });
    }
    await rm(cache.NUMINTEL_CACHE_DIR, { recursive: true, force: true });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ratios = runs.cold.map((c, i) => c.rate / runs['no-cache'][i].rate);
  const ratio = median(ratios);
  const warm = median(runs.warm.map((w) => w.rate));
  const each = rounds > 1 ? ` (rounds: ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})` : '';
  console.log(`  cold with the cache: ${(ratio * 100).toFixed(0)}% of --no-cache's rate${each} (target ≥ 90%)`);
  console.log(`  peak RSS, most of any round: no-cache ${fmt(Math.max(...runs['no-cache'].map((r) => r.peakMb)))} MB, cold ${fmt(Math.max(...runs.cold.map((r) => r.peakMb)))} MB, warm ${fmt(Math.max(...runs.warm.map((r) => r.peakMb)))} MB (target ≤ 300)`);
  console.log(`  warm re-run: ${fmt(warm)} rows/s (target ≥ 50,000), requests: ${runs.warm.map((w) => fmt(w.sent)).join(', ')} (must be 0)`);
  if (runs.warm.some((w) => w.sent !== 0)) failed = true;
  report('cache-run', { run: 'summary', rows, rounds, coldRatio: ratio, ratios });
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;
