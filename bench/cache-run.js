#!/usr/bin/env node
// The persistent cache in whole runs of the CLI over a CSV of unique valid numbers (sandbox limits
// off, --rate 0): a cold run with --no-cache, a cold run that fills a fresh cache, then a warm
// re-run of the same file from that cache (the service must see no request). Rows/s end to end
// (start-up included) and the peak RSS of each.
// Run after `npm run build`:
//   node bench/cache-run.js [rows=200000] [concurrency=32]
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 200_000);
const concurrency = Number(process.argv[3] ?? 32);

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
let failed = false;
try {
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,phone', validNumbers(rows, 5), (n, i) => `${i},${n}`);
  const env = { ...cliEnv(tmp.dir, sandbox), NUMINTEL_CACHE_DIR: join(tmp.dir, 'cache') };
  console.log(`cache runs: ${fmt(rows)} unique numbers, CSV in → CSV out, --rate 0 --concurrency ${concurrency} (node ${process.version})`);
  const figures = {};
  for (const [name, extra] of [['no-cache', ['--no-cache']], ['cold', []], ['warm', []]]) {
    await sandbox.reset();
    const output = join(tmp.dir, `out-${name}.csv`);
    const cli = await runCli(['lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q', ...extra], env);
    const written = (await countLines(output)) - 1;
    if (written !== rows) throw new Error(`${name}: CLI wrote ${written} rows of ${rows}`);
    const sent = (await sandbox.stats()).requests.total;
    const rate = rows / cli.seconds;
    figures[name] = { rate, peakMb: cli.peakMb, sent };
    console.log(`  ${name.padEnd(8)} ${fmt(rate).padStart(9)} rows/s  peak RSS ${fmt(cli.peakMb).padStart(4)} MB  requests the service saw: ${fmt(sent)}`);
    report('cache-run', { run: name, rows, rate, peakMb: cli.peakMb, sent });
    await rm(output, { force: true });
  }
  const ratio = figures.cold.rate / figures['no-cache'].rate;
  console.log(`  cold with the cache: ${(ratio * 100).toFixed(0)}% of --no-cache's rate (target ≥ 90%)`);
  console.log(`  warm re-run: ${fmt(figures.warm.rate)} rows/s (target ≥ 50,000), ${fmt(figures.warm.sent)} requests (must be 0)`);
  if (figures.warm.sent !== 0) failed = true;
  report('cache-run', { run: 'summary', rows, coldRatio: ratio });
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;
