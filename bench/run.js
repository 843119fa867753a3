#!/usr/bin/env node
// `npm run bench`: every benchmark in turn, each in its own process, then one summary table.
// Run after `npm run build`. The 1M-row memory run takes a few minutes on its own, so it runs
// only when asked:  node bench/run.js [--full]
// Each benchmark also runs alone (see its header for its arguments).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const full = process.argv.includes('--full');

const benches = [
  { file: 'sandbox.js', args: ['5'] },
  { file: 'startup.js', args: ['11'] },
  { file: 'numbers.js', args: ['100000'] },
  { file: 'bulk-limit.js', args: [] },
  { file: 'bulk-unlimited.js', args: ['100000', '16,32,64'] },
  { file: 'bulk-memory.js', args: [full ? '100000,1000000' : '100000', 'plain,enhanced'] },
  { file: 'report.js', args: [full ? '1000000' : '200000'] },
  { file: 'cache-store.js', args: [full ? '1000000' : '100000'] },
  { file: 'lmdb-writes.js', args: [full ? '1000000' : '200000'] },
  { file: 'dry-run.js', args: [full ? '1000000' : '200000'] },
  { file: 'cache-run.js', args: [full ? '1000000' : '100000'] },
  { file: 'gc-promotion.js', args: [full ? '100000' : '50000'] },
];

function run({ file, args }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, file), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk.replace(/^BENCH .*\n?/gm, ''));
    });
    // Bounded: no benchmark may run away with the suite.
    const killer = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      const figures = out.split('\n').filter((l) => l.startsWith('BENCH ')).map((l) => JSON.parse(l.slice(6)));
      resolve({ file, code, out, figures });
    });
  });
}

const results = [];
for (const b of benches) {
  console.log(`\n== ${b.file} ${b.args.join(' ')}`);
  results.push(await run(b));
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const n = (x) => Math.round(x).toLocaleString('en-US');
const rows = [];
for (const r of results) {
  if (r.file === 'sandbox.js') rows.push(['sandbox REST LRN (autocannon, 50 conns)', /([\d,]+) lookups\/s/.exec(r.out)?.[1] ?? '?', 'lookups/s', '']);
  if (r.file === 'startup.js') {
    for (const m of r.out.matchAll(/^\s+((?:numintel|node:) [^\n]*?)\s+([\d.]+) ms\s+([\d.]+)×/gm)) {
      rows.push([`start-up: ${m[1]}`, m[2] ?? '?', `ms, ${m[3] ?? '?'}× node -e 0`, m[1]?.includes(' lrn ') ? '≤ 2×' : '']);
    }
  }
  for (const f of r.figures) {
    if (f.name === 'bulk-limit') {
      rows.push([`at limit ${f.limit}/s: CLI rows/s (whole run)`, f.rowsRate.toFixed(1), pct(f.rowsRate / f.limit), '≥ 95%']);
      rows.push([`at limit ${f.limit}/s: sandbox billed/s (busy window)`, f.busyRate.toFixed(1), pct(f.busyRate / f.limit), '≥ 95%']);
      rows.push([`at limit ${f.limit}/s: 429 share`, pct(f.share429), '', '≤ 0.5%']);
    }
    if (f.name === 'numbers') {
      rows.push(['number validation: µs/number as bundled', f.bundledUs.toFixed(2), `library parse + isValid ${f.libraryUs.toFixed(2)}`, '']);
    }
    if (f.name === 'bulk-unlimited') {
      rows.push([`unlimited c=${f.concurrency}: CLI lookups/s`, n(f.cliRate), `${pct(f.ratio)} of bare ${n(f.bareRate)}`, '≥ 10,000; ≥ 50%']);
    }
    if (f.name === 'report') {
      rows.push([`report ${n(f.rows)} enriched CSV rows: rows/s`, n(f.rowsRate), `peak RSS ${n(f.peakMb)} MB`, f.rows >= 1e6 ? '≥ 200,000/s; ≤ 200 MB' : '']);
    }
    if (f.name === 'cache-store') {
      rows.push([`cache ${n(f.entries)} LRN answers: bytes an entry (file / B-tree)`, n(f.bytesPerEntry), `/ ${n(f.treeBytesPerEntry)}`, 'small']);
      rows.push([`cache ${n(f.entries)}: warm gets/s (store alone)`, n(f.getRate), `puts ${n(f.putRate)}/s`, '']);
    }
    if (f.name === 'cache-run' && f.run !== 'summary') rows.push([`${n(f.rows)} rows, ${f.run} run: rows/s`, n(f.rate), `peak RSS ${n(f.peakMb)} MB, ${n(f.sent)} requests`, f.run === 'warm' ? '≥ 50,000; 0 requests' : '']);
    if (f.name === 'dry-run') rows.push([`--dry-run ${n(f.rows)} rows, ${f.cache} cache: rows/s`, n(f.rate), `peak RSS ${n(f.peakMb)} MB`, f.cache === 'empty' ? '≥ 100,000' : '']);
    if (f.name === 'bulk-memory') rows.push([`memory ${n(f.rows)} rows ${f.variant}: peak RSS`, n(f.peakMb), 'MB', f.rows >= 1e6 ? '≤ 300 MB' : '']);
  }
  if (r.code !== 0) rows.push([`${r.file} exited ${r.code}`, '', '', '']);
}
const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => String(row[i]).length), 6));
console.log(`\nsummary (node ${process.version}${full ? '' : '; 1M-row memory run: npm run bench -- --full'})`);
for (const row of rows) console.log(`  ${row.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('  ')}`);
if (results.some((r) => r.code !== 0)) process.exitCode = 1;
