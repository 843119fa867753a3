#!/usr/bin/env node
// The persistent cache in whole runs of the CLI over a CSV of unique valid numbers (sandbox limits
// off, --rate 0): a cold run with --no-cache, a cold run that fills a fresh cache, then a warm
// re-run of the same file from that cache (the service must see no request). Rows/s end to end
// (start-up included) and the peak RSS of each. With rounds > 1 the three run in turn that many
// times (each cold run in a fresh cache) and the figures are medians, the ratio the median of each
// round's cold ÷ --no-cache: on a shared 2-core machine one pair of runs can land in different
// moments of its load (pairs of the same build measured 73% and 93% within an hour).
// Then, as many rounds again, a --no-cache run and a cold run (a fresh cache) go AT ONCE against the
// same sandbox, on the same input, so the machine's moods hit both alike: each one's rows a second
// over the same seconds, read from the growth of its output file (both write the same bytes, as
// rows finish, in order), from the moment both have written 5% of them until the first has
// written 90%. They share the two cores and the sandbox, so the rates are lower than alone; their
// ratio is the figure. Linux or not: only file sizes are read.
// Run after `npm run build`:
//   node bench/cache-run.js [rows=200000] [concurrency=32] [rounds=1]
import { spawn } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, cliEnv, countLines, exited, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

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
  const percent = (r) => `${(r * 100).toFixed(0)}%`;
  const each = (xs) => (rounds > 1 ? ` (rounds: ${xs.map(percent).join(', ')})` : '');
  console.log(`  cold with the cache: ${percent(ratio)} of --no-cache's rate${each(ratios)} (target ≥ 90%)`);
  console.log(`  peak RSS, most of any round: no-cache ${fmt(Math.max(...runs['no-cache'].map((r) => r.peakMb)))} MB, cold ${fmt(Math.max(...runs.cold.map((r) => r.peakMb)))} MB, warm ${fmt(Math.max(...runs.warm.map((r) => r.peakMb)))} MB (target ≤ 300)`);
  console.log(`  warm re-run: ${fmt(warm)} rows/s (target ≥ 50,000), requests: ${runs.warm.map((w) => fmt(w.sent)).join(', ')} (must be 0)`);
  if (runs.warm.some((w) => w.sent !== 0)) failed = true;
  const together = [];
  for (let round = 0; round < rounds; round++) {
    await sandbox.reset();
    together.push(await atOnce(input, env, join(tmp.dir, `cache-at-once-${round}`), join(tmp.dir, `at-once-${round}`)));
  }
  const togetherRatios = together.map((t) => t.cold / t.noCache);
  const atOnceRatio = median(togetherRatios);
  const mid = together[togetherRatios.indexOf(atOnceRatio)];
  console.log(`  at once, the same seconds: --no-cache ${fmt(mid.noCache)} rows/s, cold ${fmt(mid.cold)} rows/s: ${percent(atOnceRatio)}${each(togetherRatios)} (target ≥ 90%)`);
  report('cache-run', { run: 'summary', rows, rounds, coldRatio: ratio, ratios, atOnceRatio, atOnceRatios: togetherRatios });
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;

/**
 * One round at once (see the top of this file): a --no-cache run and a cold run in `cacheDir`,
 * started together; each one's rows a second between the two moments, from its output file's size.
 */
async function atOnce(input, env, cacheDir, dir) {
  const outputs = { noCache: `${dir}-no-cache.csv`, cold: `${dir}-cold.csv` };
  const start = (output, extra) =>
    spawn(process.execPath, [CLI, 'lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q', ...extra], {
      env: { ...env, NUMINTEL_CACHE_DIR: cacheDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  const children = { noCache: start(outputs.noCache, ['--no-cache']), cold: start(outputs.cold, []) };
  const ended = Promise.all([exited(children.noCache), exited(children.cold)]);
  const size = (path) => stat(path).then((s) => s.size, () => 0);
  // Sizes until both have ended (bounded by exited()'s own deadline).
  const samples = [];
  let done = false;
  ended.then(() => (done = true), () => (done = true));
  while (!done) {
    samples.push({ at: performance.now(), noCache: await size(outputs.noCache), cold: await size(outputs.cold) });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [a, b] = await ended;
  if (a.code !== 0 || b.code !== 0) throw new Error(`at once: the runs ended ${a.code} and ${b.code}:\n${a.stderr.slice(-1000)}\n${b.stderr.slice(-1000)}`);
  const bytes = await size(outputs.cold);
  if (bytes !== (await size(outputs.noCache))) throw new Error('at once: the two runs wrote different outputs');
  const from = samples.find((x) => x.noCache >= bytes * 0.05 && x.cold >= bytes * 0.05);
  const to = samples.find((x) => x.noCache >= bytes * 0.9 || x.cold >= bytes * 0.9);
  if (!from || !to || to.at <= from.at) throw new Error('at once: the runs ended too quickly to be measured');
  const rowsPerByte = rows / bytes;
  const rate = (key) => ((to[key] - from[key]) * rowsPerByte) / ((to.at - from.at) / 1000);
  await Promise.all(Object.values(outputs).map((path) => rm(path, { force: true })));
  await rm(cacheDir, { recursive: true, force: true });
  return { noCache: rate('noCache'), cold: rate('cold') };
}
