#!/usr/bin/env node
// Pacing under the documented limit: a sandbox (own process) allowing 200 LRN requests per key
// per wall-clock second, and the real CLI at its default rate (the documented 200/s) on 4,000
// unique valid numbers. Prints the achieved rate two ways — rows over the CLI's whole run, and
// billed lookups over the sandbox's first-to-last request window — and the share of 429 answers.
// Targets: ≥ 95% of the limit, ≤ 0.5% 429s.
// Run after `npm run build`: node bench/bulk-limit.js [rows=4000] [limit=200]
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 4000);
const limit = Number(process.argv[3] ?? 200);

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', String(limit)]);
try {
  const numbers = validNumbers(rows, 3);
  const input = join(tmp.dir, 'numbers.txt');
  await writeLines(input, null, numbers);
  const output = join(tmp.dir, 'out.jsonl');
  const args = ['lrn', '-i', input, '-o', output, '-q'];
  if (limit !== 200) args.push('--rate', String(limit));
  // The sandbox's clock: requests seen before and after, sampled around the run.
  const window = await sampleWindow(() => runCli(args, cliEnv(tmp.dir, sandbox)));
  const cli = window.result;
  const stats = await sandbox.stats();
  const written = await countLines(output);
  if (written !== rows || stats.billed !== rows) throw new Error(`CLI wrote ${written} rows, sandbox billed ${stats.billed}; expected ${rows}`);
  const rowsRate = rows / cli.seconds;
  const served = stats.requests.lrn;
  const share429 = stats.rateLimited / served;
  const busyRate = window.billedRate;
  console.log(`bulk at the limit: ${fmt(rows)} unique valid numbers, sandbox LRN limit ${limit}/s, CLI default rate (node ${process.version})`);
  console.log(`  CLI: ${fmt(rowsRate, 1)} rows/s over its whole run (${cli.seconds.toFixed(2)} s incl. start-up) = ${((rowsRate / limit) * 100).toFixed(1)}% of the limit`);
  console.log(`  sandbox: ${fmt(busyRate, 1)} billed lookups/s while requests flowed = ${((busyRate / limit) * 100).toFixed(1)}% of the limit`);
  console.log(`  429s: ${stats.rateLimited} of ${served} requests = ${(share429 * 100).toFixed(2)}%   (targets: ≥ 95% of the limit, ≤ 0.5% 429s)`);
  report('bulk-limit', { rows, limit, rowsRate, busyRate, share429, seconds: cli.seconds });
  if (Math.max(rowsRate, busyRate) < 0.95 * limit || share429 > 0.005) process.exitCode = 1;
} finally {
  await sandbox.stop();
  await tmp.remove();
}

/**
 * Runs `fn` while polling the sandbox's billed count every 100 ms: the rate is taken between the
 * first poll that saw a billed lookup and the first that saw them all, so start-up and exit of
 * the CLI do not count (the window is 100 ms coarse, a 0.5% error on a 20 s run).
 */
async function sampleWindow(fn) {
  let first;
  let last;
  let polling = true;
  const sample = async () => {
    const { billed } = await sandbox.stats();
    const at = performance.now();
    if (billed > 0 && !first) first = { billed, at };
    if (billed >= rows && !last) last = { billed, at };
  };
  const poll = (async () => {
    for (let i = 0; polling && i < 20 * 60 * 10; i++) {
      await sample();
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const result = await fn();
  polling = false;
  await poll;
  await sample();
  const billedRate = first && last && last.at > first.at ? (last.billed - first.billed) / ((last.at - first.at) / 1000) : 0;
  return { result, billedRate };
}
