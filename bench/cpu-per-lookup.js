#!/usr/bin/env node
// Client CPU per lookup: the real CLI, CSV in → CSV out (`lrn -i in.csv -o out.csv --rate 0
// --no-cache`), against a fixed-response server (its own process, so the server is not the
// bottleneck), beside a bare undici loop (bench/lib/bare-loop.js: POST, read, parse, nothing else)
// on the same numbers in the same run. Each is its own process, measured by /usr/bin/time as
// user+sys CPU seconds; the figure is µs per lookup, and the ratio CLI ÷ bare loop (target ≤ 1.3).
// 500,000 rows by default: the cost of a lookup in a batch job, whose start-up and JIT warm-up (the
// CLI has more code for V8 to optimise than the loop) are spread over its rows; over 100,000 rows
// they still add a few hundredths to the ratio, over 30,000 it is 1.6 (README, Benchmarks).
// `--no-cache` makes the CLI do what the bare loop does, one request per row; the default run
// (the persistent cache on, empty: a fresh cache directory for every run, so it too sends every
// row, and also stores every answer) is measured beside it. (Both runs once shared one cache
// directory, so the measured run answered every row from the warm-up's cache and sent nothing.)
// The three run in turn, `rounds` times (default 3), and the figures are medians: on a shared
// machine one run of each can land in different moments of its load (a single round once gave
// 1.03× and the next 1.75×), and the ratio of each round compares runs made side by side.
// Then, as many rounds again, the CLI (--no-cache) and the bare loop run AT ONCE against the same
// server (told apart there by their keys), and each one's CPU is read from /proc/<pid>/stat (all
// its threads) at the same two moments: once both have sent 5% of their rows, and when the first
// has sent 90%. Both are measured over the same seconds of the machine, so its moods, which move
// a lone run's CPU by a quarter either way, hit both alike (these rounds' ratios stay within a few
// percent of each other), and start-up and the last rows are left out of both. They share the two
// cores with each other and the server, so each takes more answers a wakeup than alone: the µs
// are lower than a lone run's, the ratio is the figure. With --against=DIR, as many rounds more
// of this CLI and DIR's at once. Linux only (/proc).
// Run after `npm run build`:
//   node bench/cpu-per-lookup.js [rows=500000] [concurrency=16] [rounds=3] [--prof] [--against=DIR]
// --prof also runs the CLI (--no-cache) under `node --cpu-prof` and prints the functions with the
// most self time. --against=DIR also runs, in every round, the CLI (--no-cache) of another built
// checkout (e.g. `git worktree add DIR <commit>`, node_modules linked, `npm run build` there): a
// change's effect, measured side by side, apart from the machine's moods between runs.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { CLI, ROOT, countLines, exited, fixedServerSetting, fmt, report } from './lib/harness.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rows = Number(args[0] ?? 500_000);
const concurrency = Number(args[1] ?? 16);
const rounds = Number(args[2] ?? 3);
const prof = process.argv.includes('--prof');
const against = process.argv.find((a) => a.startsWith('--against='))?.slice('--against='.length);

/** Runs `argv` under /usr/bin/time; resolves with its user+sys CPU seconds and wall seconds. */
async function timed(argv, env) {
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S', ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const { code, stderr } = await exited(child);
  const m = /CPU (\d+\.\d+) (\d+\.\d+)/.exec(stderr);
  if (code !== 0 || !m) throw new Error(`${argv.join(' ')} ended ${code}:\n${stderr.slice(-2000)}`);
  return { cpu: Number(m[1]) + Number(m[2]), user: Number(m[1]), sys: Number(m[2]), seconds: (performance.now() - started) / 1000 };
}

const setting = await fixedServerSetting(rows);
const { csv, list, env } = setting;
try {
  const out = join(setting.dir, 'out.csv');
  const cliArgs = [CLI, 'lrn', '-i', csv, '-o', out, '--rate', '0', '--concurrency', String(concurrency), '--no-progress', '-q'];
  const noCache = [...cliArgs, '--no-cache'];
  const otherNoCache = against && [join(against, 'bin', 'numintel.js'), ...noCache.slice(1)];
  // Every run of the default gets an empty cache directory of its own: each one sends every row.
  let caches = 0;
  const coldEnv = () => ({ ...env, NUMINTEL_CACHE_DIR: join(setting.dir, `cache-${caches++}`) });
  const checkOut = async (what) => {
    const written = (await countLines(out)) - 1;
    if (written !== rows) throw new Error(`CLI (${what}) wrote ${written} rows, expected ${rows}`);
  };
  const bareLoop = (key) => [join(ROOT, 'bench', 'lib', 'bare-loop.js'), setting.url, key, list, String(concurrency)];
  const bareArgs = [process.execPath, ...bareLoop(env.NUMINTEL_API_KEY)];
  // One warm-up of each (the CLI writes its code cache on the first run), then the measured rounds.
  await timed([process.execPath, ...noCache], env);
  if (otherNoCache) await timed([process.execPath, ...otherNoCache], env);
  await timed(bareArgs, env);
  const us = (t) => (t.cpu * 1e6) / rows;
  const runs = { cli: [], cold: [], bare: [], other: [] };
  for (let r = 0; r < rounds; r++) {
    runs.cli.push(await timed([process.execPath, ...noCache], env));
    await checkOut('--no-cache');
    if (otherNoCache) {
      runs.other.push(await timed([process.execPath, ...otherNoCache], env));
      await checkOut(`--no-cache of ${against}`);
    }
    runs.cold.push(await timed([process.execPath, ...cliArgs], coldEnv()));
    await checkOut('cache on');
    runs.bare.push(await timed(bareArgs, env));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const middle = (list) => list.find((t) => us(t) === median(list.map(us)));
  const [cli, cold, bare] = [middle(runs.cli), middle(runs.cold), middle(runs.bare)];
  const ratios = runs.cli.map((t, i) => us(t) / us(runs.bare[i]));
  const coldRatios = runs.cold.map((t, i) => us(t) / us(runs.bare[i]));
  const ratio = median(ratios);
  const spread = (xs) => (xs.length > 1 ? ` (rounds: ${xs.map((x) => x.toFixed(2)).join(', ')})` : '');
  const line = (t) => `${us(t).toFixed(1)} µs/lookup user+sys (${t.user.toFixed(2)} + ${t.sys.toFixed(2)} s, ${fmt(rows / t.seconds)} lookups/s)`;
  console.log(`CPU per lookup: ${fmt(rows)} rows, concurrency ${concurrency}, fixed-response server, median of ${rounds} rounds (node ${process.version})`);
  console.log(`  CLI --no-cache (CSV in → CSV out): ${line(cli)}`);
  console.log(`  CLI, cache on (empty):             ${line(cold)}`);
  console.log(`  bare undici loop:                  ${line(bare)}`);
  console.log(`  CLI --no-cache ÷ bare: ${ratio.toFixed(2)}×${spread(ratios)}   (target ≤ 1.3×)`);
  console.log(`  cache on ÷ bare: ${median(coldRatios).toFixed(2)}×${spread(coldRatios)}`);
  if (otherNoCache) {
    const otherRatios = runs.other.map((t, i) => us(t) / us(runs.bare[i]));
    console.log(`  ${against} --no-cache: ${line(middle(runs.other))}; ÷ bare: ${median(otherRatios).toFixed(2)}×${spread(otherRatios)}`);
  }
  // At once, each client with a key of its own (the server counts requests by key).
  const cliAtOnce = { argv: noCache, env };
  const together = await atOnce(cliAtOnce, { argv: bareLoop('bare-loop-key'), env, key: 'bare-loop-key' });
  const atOnceLine = (name, pairs) => {
    const ratios = pairs.map((r) => r.a / r.b);
    const mid = pairs.find((r) => r.a / r.b === median(ratios));
    return mid && `  at once, the same seconds (steady state): CLI --no-cache ${mid.a.toFixed(1)} µs/lookup, ${name} ${mid.b.toFixed(1)}; ÷: ${median(ratios).toFixed(2)}×${spread(ratios)}`;
  };
  if (together.length > 0) console.log(`${atOnceLine('bare loop', together)}   (target ≤ 1.3×)`);
  if (otherNoCache) {
    const otherKey = 'other-build-key';
    const pairs = await atOnce(cliAtOnce, { argv: otherNoCache, env: { ...env, NUMINTEL_API_KEY: otherKey }, key: otherKey });
    if (pairs.length > 0) console.log(atOnceLine(`${against} --no-cache`, pairs));
  }
  report('cpu-per-lookup', {
    rows,
    concurrency,
    rounds,
    cliUs: us(cli),
    cacheOnUs: us(cold),
    bareUs: us(bare),
    ratio,
    ratios,
    cacheOnRatio: median(coldRatios),
    together: together.map((r) => r.a / r.b),
  });
  if (prof) await profile(noCache, env);
} finally {
  await setting.close();
}

/**
 * `rounds` rounds of two clients at once (see the top of this file), each `{ argv, env, key }` (key:
 * the API key it sends, its env's when absent): per round, each one's CPU µs per request between
 * the moment both have sent 5% of their rows and the moment the first has sent 90%, as `{ a, b }`.
 * [] where there is no /proc.
 */
async function atOnce(a, b) {
  const cpuMs = async (pid) => {
    // utime and stime, fields 14 and 15, in clock ticks (USER_HZ, 100 a second on Linux).
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  try {
    await readFile(`/proc/${process.pid}/stat`);
  } catch {
    return [];
  }
  const keyOf = (c) => `Bearer ${c.key ?? c.env.NUMINTEL_API_KEY}`;
  const sentBy = async () => {
    const counts = await getJson(setting.url);
    return { a: counts[keyOf(a)] ?? 0, b: counts[keyOf(b)] ?? 0 };
  };
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const start = await sentBy();
    const [pa, pb] = [a, b].map((c) => spawn(process.execPath, c.argv, { env: c.env, stdio: ['ignore', 'ignore', 'pipe'] }));
    const ended = Promise.all([exited(pa), exited(pb)]);
    // Awaited below; a failure before then is reported from there, not as an unhandled rejection.
    ended.catch(() => {});
    /** Requests sent since the round began, per client, once `enough` says so (bounded by the runs' own end). */
    const when = async (enough) => {
      for (;;) {
        const now = await sentBy();
        const done = { a: now.a - start.a, b: now.b - start.b };
        if (enough(done)) return done;
        if (pa.exitCode !== null || pb.exitCode !== null) throw new Error(`a client ended before the window was measured (exits ${pa.exitCode}, ${pb.exitCode}; requests sent ${JSON.stringify(done)})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const from = await when((d) => d.a >= rows * 0.05 && d.b >= rows * 0.05);
    const cpuFrom = { a: await cpuMs(pa.pid), b: await cpuMs(pb.pid) };
    const to = await when((d) => d.a >= rows * 0.9 || d.b >= rows * 0.9);
    const cpuTo = { a: await cpuMs(pa.pid), b: await cpuMs(pb.pid) };
    const [ea, eb] = await ended;
    if (ea.code !== 0 || eb.code !== 0) throw new Error(`at once: the clients ended ${ea.code} and ${eb.code}`);
    results.push({ a: ((cpuTo.a - cpuFrom.a) * 1000) / (to.a - from.a), b: ((cpuTo.b - cpuFrom.b) * 1000) / (to.b - from.b) });
  }
  return results;
}

/** A GET's JSON answer. */
function getJson(url) {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

/** The CLI under --cpu-prof: the 20 functions with the most self time, as shares of the samples. */
async function profile(cliArgs, env) {
  const dir = join(setting.dir, 'prof');
  await timed([process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, ...cliArgs], env);
  const [file] = await readdir(dir);
  const p = JSON.parse(await readFile(join(dir, file), 'utf8'));
  const self = new Map();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  let total = 0;
  for (const [id, n] of counts) {
    const node = byId.get(id);
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + n);
    total += n;
  }
  console.log('  profile (self time):');
  for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`    ${((n / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}
