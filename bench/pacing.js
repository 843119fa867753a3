#!/usr/bin/env node
// Pacing at the edge: for each limit shape, a sandbox (its own process) enforcing it, and the
// real CLI at its defaults (no --rate) on unique valid numbers. Prints, from the sandbox's own
// counts: the fraction of the limit over the whole run (requests its windows let through, over
// the span from the first to the last, against limit ÷ window), the same over the CLI's wall
// time (start-up and exit included), the mean count of the full windows inside the run against
// the limit, the share of 429 answers, and the most requests one window counted (never above the
// limit). The target applies to the first figure.
//
// Run after `npm run build`:
//   node bench/pacing.js                 every scenario (the 60 s window one takes ~3 minutes)
//   node bench/pacing.js --short         the 60 s window scenario as 10 s windows of 1,000 (~30 s)
//   node bench/pacing.js lrn200 shared   only these scenarios (names below)
//   node bench/pacing.js --scale 0.5     half the rows of every scenario (shorter, noisier)
//   node bench/pacing.js --peers         also the peers, each against its own sandbox of the same
//                                        shape: xargs -P 16 + curl --retry, GNU parallel -j 16 + curl,
//                                        and an aiohttp script paced at the documented limit
//                                        (bench/lib/aiohttp-peer.py); single-lookup scenarios only
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { ROOT, cliEnv, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

/** The documented limit of each lookup: what a peer that reads no headers paces at. */
const DOCUMENTED = { lrn: 200, cnam: 50, trust: 50 };

const argv = process.argv.slice(2);
const short = argv.includes('--short');
const withPeers = argv.includes('--peers');
/** A python3 that has aiohttp (Debian's python3-aiohttp is for /usr/bin/python3); set by availablePeers. */
let python;
const scaleAt = argv.indexOf('--scale');
const scale = scaleAt >= 0 ? Number(argv[scaleAt + 1]) : 1;
const picked = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--scale');

/**
 * Each scenario: the sandbox's flags, the CLI's command, rows per process, the limit and window
 * the fraction is measured against, its targets, and how many CLI processes share the key.
 */
const SCENARIOS = [
  { name: 'lrn200', what: 'LRN 200/s, reset as a delta', sandbox: [], cmd: ['lrn'], rows: 4000, limit: 200, min: 0.99, max429: 0.001 },
  { name: 'cnam50', what: 'CNAM 50/s, reset as a Unix time', sandbox: [], cmd: ['cnam'], rows: 1000, limit: 50, min: 0.99, max429: 0.001 },
  { name: 'trust100', what: 'trust 100/s (documented 50/s)', sandbox: [], cmd: ['trust'], rows: 2000, limit: 100, min: 0.99, max429: 0.001 },
  { name: 'lrn20', what: 'LRN 20/s, reset as a delta', sandbox: ['--limit-lrn', '20'], cmd: ['lrn'], rows: 400, limit: 20, min: 0.97 },
  { name: 'unknown137', what: 'LRN 137/s, no limit header', sandbox: ['--limit-lrn', '137', '--hide-limit'], cmd: ['lrn'], rows: 2740, limit: 137, min: 0.95, max429: 0.01 },
  { name: 'advertised400', what: 'LRN 400/s advertised', sandbox: ['--limit-lrn', '400'], cmd: ['lrn'], rows: 8000, limit: 400, min: 0.97 },
  short
    ? { name: 'window60', what: '10 s windows of 1,000, 2× bursts (--short)', sandbox: ['--window', '10', '--limit-lrn', '1000', '--burst', '2'], cmd: ['lrn'], rows: 3000, limit: 1000, windowS: 10, min: 0.98, max429: 0.001 }
    : { name: 'window60', what: '60 s windows of 6,000, 2× bursts', sandbox: ['--window', '60', '--limit-lrn', '6000', '--burst', '2'], cmd: ['lrn'], rows: 18000, limit: 6000, windowS: 60, min: 0.98, max429: 0.001 },
  { name: 'spurious5', what: 'LRN 200/s, 5% spurious hint-less 429s', sandbox: ['--rate-429', '0.05', '--rate-429-bare'], cmd: ['lrn'], rows: 4000, limit: 200, min: 0.9 },
  // A hinted 429 holds the whole endpoint for its Retry-After: the target is no early request; the fraction is what that costs.
  { name: 'hinted10', what: 'LRN 200/s, 10% spurious 429s with Retry-After', sandbox: ['--rate-429', '0.1'], cmd: ['lrn'], rows: 1000, limit: 200, min: 0, maxEarly: 0 },
  { name: 'hintedCnam', what: 'CNAM 20/s, Unix-time resets, 10% hinted 429s', sandbox: ['--limit-cnam', '20', '--rate-429', '0.1'], cmd: ['cnam'], rows: 300, limit: 20, min: 0, maxEarly: 0 },
  { name: 'ietf', what: 'LRN 200/s, IETF RateLimit fields only', sandbox: ['--rate-headers', 'ietf'], cmd: ['lrn'], rows: 4000, limit: 200, min: 0.99, max429: 0.001 },
  { name: 'shared', what: 'enrich, one budget of 300/s for LRN+CNAM+trust', sandbox: ['--shared-limit', '300'], cmd: ['enrich', '--lookups', 'lrn,cnam,trust'], rows: 2000, lookups: 3, limit: 300, min: 0.98 },
  { name: 'two', what: 'two processes on one key, LRN 200/s', sandbox: [], cmd: ['lrn'], rows: 2000, processes: 2, limit: 200, min: 0.95 },
];

const chosen = picked.length ? SCENARIOS.filter((s) => picked.includes(s.name)) : SCENARIOS;
if (chosen.length === 0) throw new Error(`no such scenario: ${picked.join(', ')} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);

const peers = withPeers ? availablePeers() : [];
const results = [];
for (const s of chosen) {
  results.push(await scenario(s, null));
  if ((s.processes ?? 1) === 1 && !s.lookups) for (const peer of peers) results.push(await scenario(s, peer));
}

console.log(`\npacing at the edge (node ${process.version}, CLI defaults, no --rate${scale !== 1 ? `, rows ×${scale}` : ''})`);
console.log('scenario        limit shape                                         fraction      wall  full windows   429s    busiest window  early   target');
for (const r of results) {
  const target = r.peer ? '' : `${r.maxEarly !== undefined ? `${r.maxEarly} early` : `≥ ${r.min}`}${r.max429 !== undefined ? `, ≤ ${(r.max429 * 100).toFixed(1)}% 429s` : ''}`;
  const okMark = r.peer ? '' : r.pass ? 'ok' : 'MISSED';
  console.log(
    `${(r.peer ? `  ${r.peer}` : r.name).padEnd(15)} ${r.what.padEnd(51)} ${r.fraction.toFixed(3).padStart(8)} ${r.wall.toFixed(3).padStart(9)} ${(r.full === null ? '–' : `${r.full.toFixed(3)} ×${r.fullCount}`).padStart(13)} ${(r.share429 * 100).toFixed(2).padStart(6)}%  ${`${r.busiest} / ${r.limit}`.padStart(13)} ${String(r.early).padStart(6)}   ${target} ${okMark}`,
  );
}
if (results.some((r) => !r.peer && !r.pass)) process.exitCode = 1;
if (withPeers) console.log(`peers: ${peers.join(', ') || 'none installed'}; xargs and parallel start one curl per lookup (--retry 10 honours Retry-After)`);

/** The peers installed here (curl for xargs and parallel; python3 with aiohttp). */
function availablePeers() {
  const has = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  const list = [];
  if (has('curl', ['--version'])) list.push('xargs+curl');
  if (has('curl', ['--version']) && has('parallel', ['--version'])) list.push('parallel+curl');
  python = ['python3', '/usr/bin/python3'].find((py) => has(py, ['-c', 'import aiohttp']));
  if (python) list.push('aiohttp');
  return list;
}


/** Runs one peer over the numbers file to the end (bounded). */
async function runPeer(peer, kind, file, sandbox) {
  const url = `${sandbox.url}/api/v1/${kind}`;
  const curl = ['curl', '-s', '--retry', '10', '-H', 'content-type: application/json', '-H', `authorization: Bearer ${sandbox.apiKey}`, '-d', '{"phone_number":"{}"}', url];
  const argv =
    peer === 'xargs+curl'
      ? ['sh', '-c', `xargs -P 16 -I{} ${curl.map(shellQuote).join(' ')} < ${shellQuote(file)}`]
      : peer === 'parallel+curl'
        ? ['parallel', '--will-cite', '-q', '-j', '16', ...curl, '::::', file]
        : [python, join(ROOT, 'bench', 'lib', 'aiohttp-peer.py'), sandbox.url, sandbox.apiKey, kind, file, String(DOCUMENTED[kind])];
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
  const killer = setTimeout(() => child.kill('SIGKILL'), 900_000);
  const [code] = await once(child, 'exit');
  clearTimeout(killer);
  if (code !== 0) throw new Error(`${peer} ended ${code}`);
  return { seconds: (performance.now() - started) / 1000 };
}

function shellQuote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

async function scenario(s, peer) {
  const tmp = await tempDir();
  const sandbox = await startSandboxProcess(s.sandbox);
  try {
    const processes = s.processes ?? 1;
    const rows = Math.max(10, Math.round(s.rows * scale));
    const numbers = validNumbers(rows * processes, 5);
    const runs = [];
    for (let p = 0; p < processes; p++) {
      const input = join(tmp.dir, `numbers-${p}.txt`);
      await writeLines(input, null, numbers.slice(p * rows, (p + 1) * rows));
      if (peer) runs.push(runPeer(peer, s.cmd[0], input, sandbox));
      else runs.push(runCli([...s.cmd, '-i', input, '-o', join(tmp.dir, `out-${p}.csv`), '-q'], cliEnv(tmp.dir, sandbox), { timeoutMs: 900_000 }));
    }
    const cli = await Promise.all(runs);
    const stats = await sandbox.stats();
    const lookups = rows * processes * (s.lookups ?? 1);
    // A peer may give up on a lookup (curl after 10 retries): counted, not fatal.
    const lost = lookups - stats.billed;
    if (lost !== 0 && !peer) throw new Error(`${s.name}${peer ? ` (${peer})` : ''}: sandbox billed ${stats.billed}, expected ${lookups}`);
    const w = stats.windows;
    const windowMs = (s.windowS ?? 1) * 1000;
    const fraction = ((w.counted - 1) / Math.max(1, w.last - w.first)) * (windowMs / s.limit);
    const share429 = stats.rateLimited / stats.requests.total;
    const seconds = Math.max(...cli.map((c) => c.seconds));
    const wall = (w.counted / seconds) * (windowMs / 1000 / s.limit);
    const { full, fullCount } = fullWindows(w.counts, s.limit);
    const early = stats.early;
    const pass = fraction >= s.min && (s.max429 === undefined || share429 <= s.max429) && (s.maxEarly === undefined || early <= s.maxEarly) && w.busiest <= s.limit;
    const r = { peer, name: s.name, what: peer ? '' : s.what, limit: s.limit, min: s.min, max429: s.max429, maxEarly: s.maxEarly, fraction, wall, full, fullCount, share429, busiest: w.busiest, early, pass, seconds, lookups };
    console.log(
      `${s.name}${peer ? ` [${peer}]` : ''}: ${s.what}: ${fmt(lookups)} lookups in ${seconds.toFixed(1)} s of ${peer ? 'peer' : 'CLI'} run (sandbox ${s.sandbox.join(' ') || 'defaults'}; ${s.cmd.join(' ')}${processes > 1 ? ` ×${processes} processes` : ''}): ` +
        `${fraction.toFixed(3)} of the limit, ${stats.rateLimited} × 429 of ${stats.requests.total} requests, ${early} early, busiest window ${w.busiest}${lost ? `, ${lost} lookups never answered` : ''}`,
    );
    report(`pacing-${s.name}${peer ? `-${peer}` : ''}`, { fraction, wall, full, share429, early, busiest: w.busiest, limit: s.limit, lookups, seconds });
    return r;
  } finally {
    await sandbox.stop();
    await tmp.remove();
  }
}

/** The mean count of the windows strictly inside the run (neither the first nor the last), against the limit. */
function fullWindows(counts, limit) {
  const byBudget = new Map();
  for (const [id, n] of Object.entries(counts)) {
    const [budget, start] = id.split(':');
    if (!byBudget.has(budget)) byBudget.set(budget, []);
    byBudget.get(budget).push([Number(start), n]);
  }
  let sum = 0;
  let fullCount = 0;
  for (const list of byBudget.values()) {
    list.sort((a, b) => a[0] - b[0]);
    for (const [, n] of list.slice(1, -1)) {
      sum += n;
      fullCount += 1;
    }
  }
  return { full: fullCount ? sum / fullCount / limit : null, fullCount };
}
