#!/usr/bin/env node
// Peak memory of the CLI on large inputs: the kernel's high-water RSS (VmHWM) of the numintel
// process for CSVs of unique valid numbers, sandbox limits off, --rate 0, plain LRN and
// --enhanced. Every row is a distinct number, so the run must remember every answer ("never pay
// twice") for the whole run: that is what this measures.
// Run after `npm run build`:
//   node bench/bulk-memory.js [rows=100000,1000000] [plain,enhanced] [concurrency=32]
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const sizes = String(process.argv[2] ?? '100000,1000000').split(',').map(Number);
const variants = String(process.argv[3] ?? 'plain,enhanced').split(',');
const concurrency = Number(process.argv[4] ?? 32);
const TARGET_MB = 300;

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
let failed = false;
try {
  const all = validNumbers(Math.max(...sizes), 11);
  console.log(`bulk memory: peak RSS of the CLI, unique valid numbers, --rate 0 --concurrency ${concurrency} (node ${process.version})`);
  for (const rows of sizes) {
    const input = join(tmp.dir, `in-${rows}.csv`);
    await writeLines(input, 'id,phone', all.slice(0, rows), (n, i) => `${i},${n}`);
    for (const variant of variants) {
      await sandbox.reset();
      const output = join(tmp.dir, 'out.csv');
      const args = ['lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q'];
      if (variant === 'enhanced') args.push('--enhanced');
      const cli = await runCli(args, cliEnv(tmp.dir, sandbox));
      const written = (await countLines(output)) - 1;
      if (written !== rows) throw new Error(`CLI wrote ${written} rows of ${rows}`);
      const met = cli.peakMb <= TARGET_MB;
      if (rows >= 1_000_000 && !met) failed = true;
      console.log(
        `  ${fmt(rows).padStart(9)} rows ${variant.padEnd(8)}: peak RSS ${fmt(cli.peakMb).padStart(4)} MB (mapped files ${fmt(cli.fileMb)} MB)  ` +
          `(${cli.seconds.toFixed(1)} s, ${fmt(rows / cli.seconds)} rows/s)${rows >= 1_000_000 ? (met ? '  ≤ 300 MB: met' : '  > 300 MB: NOT met') : ''}`,
      );
      report('bulk-memory', { rows, variant, peakMb: cli.peakMb, fileMb: cli.fileMb, seconds: cli.seconds });
      await import('node:fs/promises').then((fs) => fs.rm(output, { force: true }));
    }
    await import('node:fs/promises').then((fs) => fs.rm(input, { force: true }));
  }
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;
