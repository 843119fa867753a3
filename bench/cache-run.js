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
// Then, as many rounds again, the two IN TURNS: started together, one stopped (SIGSTOP) while the
// other runs alone for two seconds, then the other way round, to the end of the first: each one's
// rows a second over its own turns. Each runs as it would alone, and a slow minute of the machine
// falls on both: one after the other, pairs of 1M-row runs of one build measured 65–123%; in
// turns, two --no-cache runs 101% (`node bench/cache-run.js 300000 32 1 --same`). Not on Windows.
// `--same` checks the two measures: the second run of each pair is a --no-cache run too, so both
// should say 100%; the runs one after the other are left out.
// Run after `npm run build`:
//   node bench/cache-run.js [rows=200000] [concurrency=32] [rounds=1] [--same]
import { spawn } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI, cliEnv, countLines, exited, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const same = process.argv.includes('--same');
const args = process.argv.slice(2).filter((a) => a !== '--same');
const rows = Number(args[0] ?? 200_000);
const concurrency = Number(args[1] ?? 32);
const rounds = Number(args[2] ?? 1);
/** In turns (see inTurns): how long each runs at a time, and from when in a turn its rows count. */
const TURN_MS = 2000;
const SETTLE_MS = 200;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percent = (r) => `${(r * 100).toFixed(0)}%`;
const each = (xs) => (rounds > 1 ? ` (rounds: ${xs.map(percent).join(', ')})` : '');

const tmp = await tempDir();
const sandbox = await startSandboxProcess(['--limit-lrn', '0', '--limit-cnam', '0', '--limit-trust', '0']);
let failed = false;
try {
  const input = join(tmp.dir, 'in.csv');
  await writeLines(input, 'id,phone', validNumbers(rows, 5), (n, i) => `${i},${n}`);
  const env = cliEnv(tmp.dir, sandbox);
  console.log(`cache runs: ${fmt(rows)} unique numbers, CSV in → CSV out, --rate 0 --concurrency ${concurrency}, ${rounds} round(s)${same ? ', --same: "cold" is a --no-cache run too' : ''} (node ${process.version})`);
  const alone = same ? undefined : await oneAfterAnother(input, env);
  // Rounds of one way of running a pair (atOnce or inTurns), each on a fresh sandbox and cache.
  const pairs = async (label, name, measure) => {
    const results = [];
    for (let round = 0; round < rounds; round++) {
      await sandbox.reset();
      results.push(await measure(input, env, join(tmp.dir, `cache-${name}-${round}`), join(tmp.dir, `${name}-${round}`)));
    }
    const ratios = results.map((t) => t.cold / t.noCache);
    const ratio = median(ratios);
    const mid = results[ratios.indexOf(ratio)];
    console.log(`  ${label}: --no-cache ${fmt(mid.noCache)} rows/s, cold ${fmt(mid.cold)} rows/s: ${percent(ratio)}${each(ratios)} (${same ? 'both --no-cache: 100% expected' : 'target ≥ 90%'})`);
    return { ratio, ratios };
  };
  const together = await pairs('at once, the same seconds', 'at-once', atOnce);
  let turns;
  if (process.platform === 'win32') console.log('  in turns: not on Windows (no SIGSTOP)');
  else turns = await pairs(`in turns, each alone ${TURN_MS / 1000} s at a time`, 'in-turns', inTurns);
  report('cache-run', { run: 'summary', rows, rounds, same, coldRatio: alone?.ratio, ratios: alone?.ratios, atOnceRatio: together.ratio, atOnceRatios: together.ratios, inTurnsRatio: turns?.ratio, inTurnsRatios: turns?.ratios });
} finally {
  await sandbox.stop();
  await tmp.remove();
}
if (failed) process.exitCode = 1;

/**
 * The runs one after the other, `rounds` times (see the top of this file): --no-cache, cold in a
 * fresh cache, warm from it. Prints each, and the medians; the cold ÷ --no-cache ratios.
 */
async function oneAfterAnother(input, env) {
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
  const ratios = runs.cold.map((c, i) => c.rate / runs['no-cache'][i].rate);
  const ratio = median(ratios);
  const warm = median(runs.warm.map((w) => w.rate));
  console.log(`  cold with the cache: ${percent(ratio)} of --no-cache's rate${each(ratios)} (target ≥ 90%)`);
  console.log(`  peak RSS, most of any round: no-cache ${fmt(Math.max(...runs['no-cache'].map((r) => r.peakMb)))} MB, cold ${fmt(Math.max(...runs.cold.map((r) => r.peakMb)))} MB, warm ${fmt(Math.max(...runs.warm.map((r) => r.peakMb)))} MB (target ≤ 300)`);
  console.log(`  warm re-run: ${fmt(warm)} rows/s (target ≥ 50,000), requests: ${runs.warm.map((w) => fmt(w.sent)).join(', ')} (must be 0)`);
  if (runs.warm.some((w) => w.sent !== 0)) failed = true;
  return { ratio, ratios };
}

/**
 * A --no-cache run and a cold run in `cacheDir`, started together on the same input: their
 * processes, their outputs' sizes (both write the same bytes, as rows finish, in order), and
 * `finish`, which waits for both to end whole and removes what they left.
 */
function startPair(input, env, cacheDir, dir) {
  const outputs = { noCache: `${dir}-no-cache.csv`, cold: `${dir}-cold.csv` };
  const start = (output, extra) =>
    spawn(process.execPath, [CLI, 'lrn', '-i', input, '-o', output, '--rate', '0', '--concurrency', String(concurrency), '-q', ...extra], {
      env: { ...env, NUMINTEL_CACHE_DIR: cacheDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  const children = { noCache: start(outputs.noCache, ['--no-cache']), cold: start(outputs.cold, same ? ['--no-cache'] : []) };
  const ends = { noCache: exited(children.noCache), cold: exited(children.cold) };
  const size = (key) => stat(outputs[key]).then((s) => s.size, () => 0);
  const ended = { noCache: false, cold: false };
  for (const key of Object.keys(ends)) ends[key].then(() => (ended[key] = true), () => (ended[key] = true));
  async function finish(what) {
    const [a, b] = await Promise.all([ends.noCache, ends.cold]);
    if (a.code !== 0 || b.code !== 0) throw new Error(`${what}: the runs ended ${a.code} and ${b.code}:\n${a.stderr.slice(-1000)}\n${b.stderr.slice(-1000)}`);
    const bytes = await size('cold');
    if (bytes !== (await size('noCache'))) throw new Error(`${what}: the two runs wrote different outputs`);
    await Promise.all(Object.values(outputs).map((path) => rm(path, { force: true })));
    await rm(cacheDir, { recursive: true, force: true });
    return rows / bytes;
  }
  return { children, ended, size, finish };
}

/**
 * One round at once (see the top of this file): each one's rows a second between the two moments,
 * from its output file's size.
 */
async function atOnce(input, env, cacheDir, dir) {
  const pair = startPair(input, env, cacheDir, dir);
  // Sizes until both have ended (bounded by exited()'s own deadline).
  const samples = [];
  while (!pair.ended.noCache || !pair.ended.cold) {
    samples.push({ at: performance.now(), noCache: await pair.size('noCache'), cold: await pair.size('cold') });
    await sleep(50);
  }
  const rowsPerByte = await pair.finish('at once');
  const bytes = rows / rowsPerByte;
  const from = samples.find((x) => x.noCache >= bytes * 0.05 && x.cold >= bytes * 0.05);
  const to = samples.find((x) => x.noCache >= bytes * 0.9 || x.cold >= bytes * 0.9);
  if (!from || !to || to.at <= from.at) throw new Error('at once: the runs ended too quickly to be measured');
  const rate = (key) => ((to[key] - from[key]) * rowsPerByte) / ((to.at - from.at) / 1000);
  return { noCache: rate('noCache'), cold: rate('cold') };
}

/**
 * One round in turns (see the top of this file): the two runs take turns of TURN_MS, the other
 * one stopped (SIGSTOP), so each runs alone, with the sandbox and both cores to itself, while the
 * machine's slower and faster minutes fall on both alike. Each one's rows a second over its turns,
 * counted from SETTLE_MS into a turn (the answers that came while it was stopped are behind it)
 * and only while both have rows left; then both run to their ends.
 */
async function inTurns(input, env, cacheDir, dir) {
  const pair = startPair(input, env, cacheDir, dir);
  const order = ['noCache', 'cold'];
  pair.children.cold.kill('SIGSTOP');
  const sum = { noCache: { bytes: 0, ms: 0 }, cold: { bytes: 0, ms: 0 } };
  for (let turn = 0; !pair.ended.noCache && !pair.ended.cold; turn++) {
    const key = order[turn % 2];
    const child = pair.children[key];
    child.kill('SIGCONT');
    await sleep(SETTLE_MS);
    const from = { at: performance.now(), bytes: await pair.size(key) };
    await sleep(TURN_MS - SETTLE_MS);
    const to = { at: performance.now(), bytes: await pair.size(key) };
    if (pair.ended.noCache || pair.ended.cold) break;
    child.kill('SIGSTOP');
    // The first turn of each is its start-up.
    if (turn >= 2) {
      sum[key].bytes += to.bytes - from.bytes;
      sum[key].ms += to.at - from.at;
    }
  }
  for (const key of order) pair.children[key].kill('SIGCONT');
  const rowsPerByte = await pair.finish('in turns');
  if (sum.cold.ms === 0 || sum.noCache.ms === 0) throw new Error('in turns: the runs ended too quickly to be measured');
  const rate = (key) => (sum[key].bytes * rowsPerByte) / (sum[key].ms / 1000);
  return { noCache: rate('noCache'), cold: rate('cold') };
}
