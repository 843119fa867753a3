#!/usr/bin/env node
// `numintel diff` over two large enriched CSVs of the same numbers (lrn --enhanced --messaging,
// cnam --spam, trust), made up here with a few percent of each change kind: rows/s over both files
// (start-up included), per CPU second, and the CLI's peak RSS, with the changed rows written to a
// CSV. The machine's load average is printed with them: wall time on a shared machine says little.
//   node bench/diff.js [rows=1000000]
// Targets: ≥ 100,000 rows/s, ≤ 300 MB with 1,000,000 rows each side.
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { LOOKUPS } from '../dist/core/lookups.js';
import { csvHeader } from '../dist/output/csv-layout.js';
import { prng } from '../dist/core/prng.js';
import { countLines, fmt, report, runCli, tempDir } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const CARRIERS = ['Verizon Wireless', 'AT&T Mobility', 'T-Mobile USA', 'Lumen Technologies', 'Onvoy Spectrum', 'Bandwidth.com CLEC'];
const TYPES = ['WIRELESS', 'LANDLINE', 'VOIP'];
const LEVELS = ['high', 'medium', 'low'];

/** One side; `later` moves about 2% of the numbers per kind, and leaves out / adds 1%. */
async function writeSide(path, later) {
  const layout = { mode: 'enrich', lookups: [LOOKUPS.lrn, LOOKUPS.cnam, LOOKUPS.trust], options: { enhanced: true, messaging: true, spam: true }, inputColumns: null, appending: false };
  const out = createWriteStream(path);
  const base = prng(7);
  const moves = prng(11);
  const pick = (random, list) => list[Math.floor(random() * list.length)];
  let buf = `${csvHeader(layout).join(',')}\n`;
  for (let i = 0; i < rows; i++) {
    // The same answer for a number on both sides, drawn from `base`; `moves` decides what changes later.
    const r = [base(), base(), base(), base(), base()];
    const m = moves();
    let n = 12015550000 + i;
    if (later && m < 0.01) n += rows; // removed here, added as another number
    const number = String(n);
    let lrn = r[0] < 0.1 ? String(n + 1) : number;
    let carrier = CARRIERS[Math.floor(r[1] * CARRIERS.length)];
    let type = TYPES[Math.floor(r[2] * TYPES.length)];
    let spam = r[3] < 0.05;
    let score = Math.floor(r[4] * 101);
    let level = LEVELS[Math.floor(r[4] * LEVELS.length)];
    let name = 'SMITH JOHN';
    if (later && m >= 0.01 && m < 0.03) [lrn, carrier] = [String(n + 7), pick(moves, CARRIERS)];
    if (later && m >= 0.03 && m < 0.05) type = pick(moves, TYPES);
    if (later && m >= 0.05 && m < 0.07) [spam, score, level] = [!spam, Math.floor(moves() * 101), pick(moves, LEVELS)];
    if (later && m >= 0.07 && m < 0.09) name = 'DOE JANE';
    if (later && m >= 0.09 && m < 0.1) name = 'WIRELESS CALLER';
    buf +=
      `${number},${number},${lrn},2019-05-11T12:00:00Z,${carrier},${type},Springfield,07302,Hudson,-0500,NJ,SPRINGFIELD,224,6006,` +
      `${carrier},true,US,1,MR${i.toString(16).toUpperCase()},,` +
      `${number},${name},NONE,,` +
      `${number},${spam},false,false,${spam ? 'SPAM' : ''},${score},${level},2024-12-21T00:54:12Z,\n`;
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

const { dir, remove } = await tempDir();
try {
  const [before, after, changes] = ['before.csv', 'after.csv', 'changes.csv'].map((f) => join(dir, f));
  await writeSide(before, false);
  await writeSide(after, true);
  const size = (await stat(before)).size + (await stat(after)).size;
  const load = loadavg()[0];
  const run = await runCli(['diff', before, after, '-o', changes], { PATH: process.env.PATH ?? '', HOME: dir });
  const changed = (await countLines(changes)) - 1;
  const rate = (2 * rows) / run.seconds;
  console.log(
    `diff: ${fmt(rows)} + ${fmt(rows)} enriched CSV rows (${fmt(size / 1e6)} MB), ${fmt(changed)} changed rows written, in ${run.seconds.toFixed(2)} s: ` +
      `${fmt(rate)} rows/s; ${run.cpuSeconds.toFixed(2)} CPU s (${fmt((2 * rows) / run.cpuSeconds)} rows per CPU second); ` +
      `peak RSS ${fmt(run.peakMb)} MB, disk writes ${fmt(run.diskMb)} MB (changes and spilled index) (node ${process.version}; load average ${load.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after, ${cpus().length} cores)`,
  );
  report('diff', { rows, seconds: run.seconds, rowsRate: rate, cpuSeconds: run.cpuSeconds, peakMb: run.peakMb });
} finally {
  await remove();
}
