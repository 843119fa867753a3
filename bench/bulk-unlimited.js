#!/usr/bin/env node
// Bulk throughput with no rate limit anywhere: the real CLI end to end (read a CSV, validate,
// dedup, send, reorder, write a CSV) against a bare request loop (bench/lib/bare-loop.js: undici, same
// concurrency, same sandbox, same numbers, REST POST /api/v1/lrn, the body read and parsed). The
// sandbox runs in its own process, so the CLI and the loop each get the other core.
// Run after `npm run build`:
//   node bench/bulk-unlimited.js [rows=100000] [concurrency=16,…]
// Several concurrencies (comma-separated) are measured one after the other.
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, ROOT, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 100_000);
const concurrencies = String(process.argv[3] ?? '16').split(',').map(Number);

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
try {
  const numbers = validNumbers(rows, 7);
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,phone', numbers, (n, i) => `${i},${n}`);
  // The bare loop (bench/lib/bare-loop.js, also cpu-per-lookup.js's baseline) reads plain numbers.
  const list = join(tmp.dir, 'numbers.txt');
  await writeLines(list, null, numbers);
  const env = cliEnv(tmp.dir, sandbox);
  console.log(`bulk, unlimited: ${fmt(rows)} unique valid numbers, sandbox limits off (node ${process.version})`);
  for (const concurrency of concurrencies) {
    await sandbox.reset();
    const output = join(tmp.dir, 'out.csv');
    const cli = await runCli(['lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '--no-progress', '-q'], env);
    const written = (await countLines(output)) - 1;
    const billed = (await sandbox.stats()).billed;
    if (written !== rows || billed !== rows) throw new Error(`CLI wrote ${written} rows, sandbox billed ${billed}; expected ${rows}`);
    await sandbox.reset();
    const bareRun = await runCli([sandbox.url, sandbox.apiKey, list, String(concurrency)], env, { cli: join(ROOT, 'bench', 'lib', 'bare-loop.js') });
    const bare = { rate: rows / bareRun.seconds };
    const cliRate = rows / cli.seconds;
    const ratio = cliRate / bare.rate;
    console.log(
      `  concurrency ${String(concurrency).padStart(3)}: CLI ${fmt(cliRate).padStart(7)} lookups/s (${cli.seconds.toFixed(2)} s, peak RSS ${fmt(cli.peakMb)} MB)` +
        `   bare loop ${fmt(bare.rate).padStart(7)} lookups/s   CLI/bare ${(ratio * 100).toFixed(0)}%`,
    );
    report('bulk-unlimited', { rows, concurrency, cliRate, bareRate: bare.rate, ratio, cliSeconds: cli.seconds, peakMb: cli.peakMb });
  }
} finally {
  await sandbox.stop();
  await tmp.remove();
}
