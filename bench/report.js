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
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { CLI, fmt, report, tempDir } from './lib/harness.js';

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

/**
 * Runs the CLI to the end; wall time, and from /proc (polled, so up to one poll late) its peak RSS
 * (VmHWM) and the CPU seconds it used: on a busy machine rows per CPU second says more than wall time.
 */
async function runMeasured(args, env) {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  let peakKb = 0;
  let cpu = 0;
  const poll = async () => {
    try {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      const fields = (await readFile(`/proc/${child.pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
      cpu = Math.max(cpu, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // gone: keep the last reading
    }
  };
  const timer = setInterval(poll, 20);
  const killer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  clearTimeout(killer);
  if (code !== 0) throw new Error(`numintel ${args.join(' ')} ended ${code}:\n${stderr.slice(-2000)}`);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpu, peakMb: peakKb / 1024 };
}

const { dir, remove } = await tempDir();
try {
  const input = join(dir, 'enriched.csv');
  await writeInput(input);
  const { size } = await stat(input);
  const run = await runMeasured(['report', input, '-f', 'json', '--as-of', '2026-01-01'], { PATH: process.env.PATH ?? '', HOME: dir });
  const rate = rows / run.seconds;
  console.log(
    `report: ${fmt(rows)} enriched CSV rows (${fmt(size / 1e6)} MB) in ${run.seconds.toFixed(2)} s: ` +
      `${fmt(rate)} rows/s; ${run.cpuSeconds.toFixed(2)} CPU s (${fmt(rows / run.cpuSeconds)} rows per CPU second); ` +
      `peak RSS ${fmt(run.peakMb)} MB (node ${process.version})`,
  );
  report('report', { rows, seconds: run.seconds, rowsRate: rate, cpuSeconds: run.cpuSeconds, peakMb: run.peakMb });
} finally {
  await remove();
}
