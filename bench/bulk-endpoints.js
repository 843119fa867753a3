#!/usr/bin/env node
// --transport bulk against the sandbox's bulk endpoints, each limit enforced by the sandbox (its
// own process), beside --transport rest. Prints, per scenario: the time, the fraction of the limit
// the run kept to (bulk requests per second over the limit), 429s, the CLI's peak RSS, and the
// numbers per second end to end (CSV in, CSV out). Each run is checked: every row written, every
// number billed once.
//
// Run after `npm run build`:
//   node bench/bulk-endpoints.js                    every scenario, at the sizes the targets name
//   node bench/bulk-endpoints.js lrn1m              only these (lrn1m, rest, enrich, unlimited)
//   node bench/bulk-endpoints.js --scale 0.1        a tenth of the rows (shorter, noisier)
// Targets: lrn1m ≥ 0.95 of the bulk limit, ≤ 0.1% 429s, ≤ 300 MB; enrich within 1.05× of the
// slower kind's ideal; unlimited ≥ 50,000 numbers/s. `rest` measures --transport rest at 200/s on
// 20,000 rows (100 s), scaled to a million for the comparison.
import { join } from 'node:path';
import { cliEnv, countLines, fmt, report, runCli, startSandboxProcess, tempDir, validNumbers, writeLines } from './lib/harness.js';

const argv = process.argv.slice(2);
const scaleAt = argv.indexOf('--scale');
const scale = scaleAt >= 0 ? Number(argv[scaleAt + 1]) : 1;
const picked = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--scale');

const BULK_LIMIT = 5;
const SCENARIOS = [
  { name: 'lrn1m', what: 'LRN, 1,000,000 numbers, bulk limit 5 requests/s', rows: 1_000_000, sandbox: ['--bulk-limit', String(BULK_LIMIT)], cmd: ['lrn', '--transport', 'bulk'], requestsPerSecond: BULK_LIMIT, perRequest: 1000, min: 0.95, max429: 0.001, maxMb: 300 },
  { name: 'rest', what: 'LRN, --transport rest at 200/s (scaled to 1,000,000)', rows: 20_000, sandbox: [], cmd: ['lrn'], requestsPerSecond: 200, perRequest: 1, scaleTo: 1_000_000 },
  { name: 'enrich', what: 'enrich lrn,cnam, 200,000 rows, bulk limit 5 requests/s each', rows: 200_000, sandbox: ['--bulk-limit', String(BULK_LIMIT)], cmd: ['enrich', '--lookups', 'lrn,cnam', '--transport', 'bulk'], requestsPerSecond: BULK_LIMIT, perRequest: 1000, maxRatio: 1.05 },
  { name: 'unlimited', what: 'LRN, 200,000 numbers, no limit anywhere', rows: 200_000, sandbox: ['--bulk-limit', '0'], cmd: ['lrn', '--transport', 'bulk', '--rate', '0'], minNumbersPerSecond: 50_000 },
];

const chosen = picked.length ? SCENARIOS.filter((s) => picked.includes(s.name)) : SCENARIOS;
if (chosen.length === 0) throw new Error(`no such scenario: ${picked.join(', ')} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);

const results = [];
for (const s of chosen) results.push(await scenario(s));

console.log(`\nbulk endpoints (node ${process.version}${scale !== 1 ? `, rows ×${scale}` : ''})`);
console.log('scenario   what                                                       rows      time   ideal  fraction   429s   numbers/s  peak RSS   target');
for (const r of results) {
  console.log(
    `${r.name.padEnd(10)} ${r.what.padEnd(58)} ${fmt(r.rows).padStart(9)} ${`${r.seconds.toFixed(1)}s`.padStart(8)} ${r.ideal === null ? '      –' : `${r.ideal.toFixed(0)}s`.padStart(7)} ${r.fraction === null ? '       –' : r.fraction.toFixed(3).padStart(9)} ${`${(r.share429 * 100).toFixed(2)}%`.padStart(6)} ${fmt(r.numbersPerSecond).padStart(11)} ${`${fmt(r.peakMb)} MB`.padStart(9)}   ${r.target} ${r.pass ? 'ok' : 'MISSED'}`,
  );
}
if (results.some((r) => !r.pass)) process.exitCode = 1;

async function scenario(s) {
  const rows = Math.max(100, Math.round(s.rows * scale));
  const tmp = await tempDir();
  const sandbox = await startSandboxProcess(s.sandbox);
  try {
    const input = join(tmp.dir, 'in.csv');
    await writeLines(input, 'id,phone', validNumbers(rows, 11), (n, i) => `${i},${n}`);
    const output = join(tmp.dir, 'out.csv');
    const cli = await runCli([...s.cmd, '-i', input, '-o', output, '--no-cache', '--no-progress', '-q'], cliEnv(tmp.dir, sandbox), { timeoutMs: 3_600_000 });
    const written = (await countLines(output)) - 1;
    const stats = await sandbox.stats();
    const kinds = s.cmd[0] === 'enrich' ? 2 : 1;
    if (written !== rows || stats.billed !== rows * kinds) throw new Error(`${s.name}: wrote ${written} rows, sandbox billed ${stats.billed}; expected ${rows} and ${rows * kinds}`);
    const requests = stats.requests.total;
    const share429 = stats.rateLimited / Math.max(1, requests);
    // The ideal: each kind's requests at its limit, kinds side by side.
    const ideal = s.requestsPerSecond ? Math.ceil(rows / s.perRequest) / s.requestsPerSecond : null;
    const fraction = ideal === null ? null : ideal / cli.seconds;
    const numbersPerSecond = (rows * kinds) / cli.seconds;
    const scaled = s.scaleTo ? (cli.seconds * s.scaleTo) / rows : null;
    const checks = [];
    if (s.min !== undefined) checks.push([`≥ ${s.min} of the limit`, fraction >= s.min]);
    if (s.max429 !== undefined) checks.push([`≤ ${(s.max429 * 100).toFixed(1)}% 429s`, share429 <= s.max429]);
    if (s.maxMb !== undefined) checks.push([`≤ ${s.maxMb} MB`, cli.peakMb <= s.maxMb]);
    if (s.maxRatio !== undefined) checks.push([`≤ ${s.maxRatio}× ideal`, cli.seconds <= s.maxRatio * ideal]);
    if (s.minNumbersPerSecond !== undefined) checks.push([`≥ ${fmt(s.minNumbersPerSecond)} numbers/s`, numbersPerSecond >= s.minNumbersPerSecond]);
    const r = {
      name: s.name,
      what: s.what,
      rows,
      seconds: cli.seconds,
      ideal,
      fraction,
      share429,
      numbersPerSecond,
      peakMb: cli.peakMb,
      target: checks.map(([t]) => t).join(', ') || (scaled ? `(a million: ${fmt(scaled / 60, 1)} min)` : ''),
      pass: checks.every(([, ok]) => ok),
    };
    console.log(`${s.name}: ${fmt(rows)} rows in ${cli.seconds.toFixed(1)} s, ${requests} requests, ${stats.rateLimited} × 429, ${fmt(numbersPerSecond)} numbers/s, peak RSS ${fmt(cli.peakMb)} MB${scaled ? `; a million would take ${fmt(scaled / 60, 1)} min` : ''}`);
    report(`bulk-endpoints-${s.name}`, { rows, seconds: cli.seconds, ideal, fraction, share429, numbersPerSecond, peakMb: cli.peakMb, requests, scaledSeconds: scaled });
    return r;
  } finally {
    await sandbox.stop();
    await tmp.remove();
  }
}
