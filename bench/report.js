#!/usr/bin/env node
// `numintel report` over a large enriched CSV (lrn --enhanced --messaging, cnam --spam, trust),
// made up here: rows/s over the whole run (start-up included) and the CLI's peak RSS.
//   node bench/report.js [rows=1000000]
// Targets: ≥ 200,000 rows/s, ≤ 200 MB on 1,000,000 rows.
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { LOOKUPS } from '../dist/core/lookups.js';
import { csvHeader } from '../dist/output/csv-layout.js';
import { prng } from '../dist/core/prng.js';
import { fmt, report, runCli, tempDir } from './lib/harness.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const CARRIERS = ['Verizon Wireless', 'AT&T Mobility', 'T-Mobile USA', 'Lumen Technologies', 'Onvoy Spectrum', 'Bandwidth.com CLEC', 'Charter Fiberlink', 'Level 3 Communications', 'US Cellular', 'Frontier', 'Cox', 'Windstream'];
const TYPES = ['WIRELESS', 'LANDLINE', 'VOIP', 'TOLLFREE', 'WRS', 'LND'];
const STATES = ['NJ', 'NY', 'CA', 'TX', 'FL', 'IL', 'PA', 'OH', 'GA', 'NC', 'MI', 'AZ', 'WA', 'CO', 'MA'];
const ZONES = ['-0500', '-0600', '-0700', '-0800'];
const LEVELS = ['high', 'medium', 'low'];
const SPAM = ['NONE', 'NONE', 'NONE', 'SPAM', 'ROBOCALL', 'SCAM'];

async function writeInput(path) {
  const layout = { mode: 'enrich', lookups: [LOOKUPS.lrn, LOOKUPS.cnam, LOOKUPS.trust], options: { enhanced: true, messaging: true, spam: true }, inputColumns: null, appending: false };
  const out = createWriteStream(path);
  const random = prng(7);
  const pick = (list) => list[Math.floor(random() * list.length)];
  let buf = `${csvHeader(layout).join(',')}\n`;
  for (let i = 0; i < rows; i++) {
    const number = String(12015550000 + ((i * 7919) % 9_000_000_000));
    if (i % 50 === 49) {
      const e = 'invalid_number: too short (7 digits): a U.S. number has 10 digits, or 11 starting with 1';
      buf += `555-0199,,${',,,,,,,,,,,,,,,,,'}"${e}",,,,"${e}",,,,,,,,,"${e}"\n`;
    } else {
      const ported = random() < 0.1;
      const lrn = ported ? String(Number(number) + 1) : number;
      const carrier = pick(CARRIERS);
      const score = Math.floor(random() * 101);
      const spam = pick(SPAM);
      buf +=
        `${number},${number},${lrn},2019-0${1 + (i % 9)}-1${i % 10}T12:00:00Z,${carrier},${pick(TYPES)},Springfield,07302,Hudson,${pick(ZONES)},${pick(STATES)},SPRINGFIELD,224,6006,` +
        `${carrier},${random() < 0.8},US,1,MR${i.toString(16).toUpperCase()},,` +
        `${number},${random() < 0.9 ? 'SMITH JOHN' : ''},${spam},,` +
        `${number},${spam === 'SPAM'},${spam === 'ROBOCALL'},${spam === 'SCAM'},${spam === 'NONE' ? '' : spam},${score},${pick(LEVELS)},2024-12-21T00:54:12Z,\n`;
    }
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
  const input = join(dir, 'enriched.csv');
  await writeInput(input);
  const { size } = await stat(input);
  const run = await runCli(['report', input, '-f', 'json', '--as-of', '2026-01-01'], { PATH: process.env.PATH ?? '', HOME: dir });
  const rate = rows / run.seconds;
  console.log(
    `report: ${fmt(rows)} enriched CSV rows (${fmt(size / 1e6)} MB) in ${run.seconds.toFixed(2)} s: ` +
      `${fmt(rate)} rows/s, peak RSS ${fmt(run.peakMb)} MB (node ${process.version})`,
  );
  report('report', { rows, seconds: run.seconds, rowsRate: rate, peakMb: run.peakMb });
} finally {
  await remove();
}
