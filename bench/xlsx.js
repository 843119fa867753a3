#!/usr/bin/env node
// Excel in and out on large inputs: peak RSS (VmHWM) and time of the CLI reading an .xlsx of unique
// valid numbers (stored as numbers, as Excel keeps typed digits) and writing -o out.xlsx, sandbox
// limits off, --rate 0. The output is read back (streamed) to check every row came out once.
// Run after `npm run build`:
//   node bench/xlsx.js [rows=100000,1000000] [concurrency=32]
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkbookReader, WorkbookWriter } from '@cj-tech-master/excelts';
import { cliEnv, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers } from './lib/harness.js';

const sizes = String(process.argv[2] ?? '100000,1000000').split(',').map(Number);
const concurrency = Number(process.argv[3] ?? 32);
const TARGET_MB = 300;

async function writeWorkbook(path, numbers) {
  const out = createWriteStream(path);
  const wb = new WorkbookWriter({ stream: out });
  const ws = wb.addWorksheet('Leads');
  ws.addRow(['id', 'name', 'phone']).commit();
  for (let i = 0; i < numbers.length; i++) {
    ws.addRow([i, `Lead ${i}`, Number(numbers[i])]).commit();
    if (out.writableNeedDrain) await new Promise((r) => out.once('drain', r));
  }
  ws.commit();
  await wb.commit();
}

async function countRows(path) {
  let rows = 0;
  for await (const ws of new WorkbookReader(createReadStream(path), { worksheets: 'emit', sharedStrings: 'cache', styles: 'ignore', hyperlinks: 'ignore', entries: 'ignore' })) {
    for await (const _ of ws) rows++;
  }
  return rows;
}

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
let failed = false;
try {
  const all = validNumbers(Math.max(...sizes), 11);
  console.log(`xlsx in and out: peak RSS of the CLI, unique valid numbers, --rate 0 --concurrency ${concurrency} (node ${process.version})`);
  for (const rows of sizes) {
    const input = join(tmp.dir, `in-${rows}.xlsx`);
    await writeWorkbook(input, all.slice(0, rows));
    await sandbox.reset();
    const output = join(tmp.dir, 'out.xlsx');
    const cli = await runCli(['lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q'], cliEnv(tmp.dir, sandbox), { timeoutMs: 1_800_000 });
    const written = (await countRows(output)) - 1;
    if (written !== rows) throw new Error(`CLI wrote ${written} rows of ${rows}`);
    const met = cli.peakMb <= TARGET_MB;
    if (rows >= 1_000_000 && !met) failed = true;
    console.log(
      `  ${fmt(rows).padStart(9)} rows: peak RSS ${fmt(cli.peakMb).padStart(4)} MB (mapped files ${fmt(cli.fileMb)} MB)  (${cli.seconds.toFixed(1)} s, ${fmt(rows / cli.seconds)} rows/s)` +
        (rows >= 1_000_000 ? (met ? '  ≤ 300 MB: met' : '  > 300 MB: NOT met') : ''),
    );
    report('xlsx', { rows, peakMb: cli.peakMb, fileMb: cli.fileMb, seconds: cli.seconds });
    await rm(output, { force: true });
    await rm(input, { force: true });
  }
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;
