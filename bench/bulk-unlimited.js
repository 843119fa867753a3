#!/usr/bin/env node
// Bulk throughput with no rate limit anywhere: the real CLI end to end (read a CSV, validate,
// dedup, send, reorder, write a CSV) against a bare request loop (undici + p-limit, same
// concurrency, same sandbox, same numbers, REST POST /api/v1/lrn, the body read and parsed). The
// sandbox runs in its own process, so the CLI and the loop each get the other core.
// Run after `npm run build`:
//   node bench/bulk-unlimited.js [rows=100000] [concurrency=16,…]
// Several concurrencies (comma-separated) are measured one after the other.
import { join } from 'node:path';
import pLimit from 'p-limit';
import { Pool } from 'undici';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 100_000);
const concurrencies = String(process.argv[3] ?? '16').split(',').map(Number);

async function bareLoop(sandbox, numbers, concurrency) {
  const pool = new Pool(sandbox.url, { connections: concurrency, pipelining: 1 });
  const limit = pLimit(concurrency);
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${sandbox.apiKey}` };
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    numbers.map((n) =>
      limit(async () => {
        const res = await pool.request({ path: '/api/v1/lrn', method: 'POST', headers, body: JSON.stringify({ phone_number: n }) });
        const json = JSON.parse(await res.body.text());
        if (res.statusCode === 200 && json.lrn) ok++;
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (ok !== numbers.length) throw new Error(`bare loop: ${numbers.length - ok} lookups failed`);
  return { seconds, rate: numbers.length / seconds };
}

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
try {
  const numbers = validNumbers(rows, 7);
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,phone', numbers, (n, i) => `${i},${n}`);
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
    const bare = await bareLoop(sandbox, numbers, concurrency);
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
